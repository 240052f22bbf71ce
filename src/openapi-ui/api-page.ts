/** The HTML of /openapi/ui: Swagger UI's files, a bearer-token field, and the page's script. */
export const API_PAGE_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>platform-authz-apiserver API</title>
  <link rel="stylesheet" href="/openapi/ui/swagger-ui.css">
  <link rel="icon" type="image/png" href="/openapi/ui/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <form id="credentials" style="font-family: sans-serif; padding: 8px 20px; display: flex; gap: 8px; align-items: center">
    <label for="token">Bearer token (optional, kept in this tab only; a client certificate works without one)</label>
    <input id="token" type="password" autocomplete="off" style="flex: 1">
    <button type="submit">Use</button>
  </form>
  <p id="status" role="status" style="font-family: sans-serif; padding: 0 20px"></p>
  <div id="swagger-ui"></div>
  <script src="/openapi/ui/swagger-ui-bundle.js"></script>
  <script src="/openapi/ui/swagger-ui-standalone-preset.js"></script>
  <script src="/openapi/ui/api-page.js"></script>
</body>
</html>
`;

/**
 * The page's script (plain browser JavaScript): lists the group versions of /openapi/v3 and
 * hands them to Swagger UI, sending the typed token with every request, the documents'
 * included.
 */
export const API_PAGE_SCRIPT = `'use strict';
(function () {
  var TOKEN_KEY = 'platform-authz-apiserver.token';
  var form = document.getElementById('credentials');
  var input = document.getElementById('token');
  var status = document.getElementById('status');
  input.value = sessionStorage.getItem(TOKEN_KEY) || '';

  function withToken(headers) {
    var token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = 'Bearer ' + token;
    return headers;
  }

  function show() {
    status.textContent = 'Loading the API documents...';
    fetch('/openapi/v3', { headers: withToken({ Accept: 'application/json' }) })
      .then(function (res) {
        if (!res.ok) throw new Error(res.status === 401 || res.status === 403
          ? 'The API documents need an authenticated user: present a client certificate or enter a bearer token (' + res.status + ').'
          : 'The API documents could not be loaded (' + res.status + ').');
        return res.json();
      })
      .then(function (index) {
        var urls = Object.keys(index.paths).sort().map(function (name) {
          return { name: name, url: index.paths[name].serverRelativeURL };
        });
        var rbac = urls.filter(function (u) { return u.name.indexOf('apis/rbac.') === 0; })[0];
        status.textContent = '';
        window.ui = SwaggerUIBundle({
          urls: urls,
          'urls.primaryName': rbac ? rbac.name : urls[0].name,
          dom_id: '#swagger-ui',
          presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
          layout: 'StandaloneLayout',
          validatorUrl: null,
          deepLinking: true,
          requestInterceptor: function (req) {
            withToken(req.headers);
            return req;
          },
        });
      })
      .catch(function (err) {
        status.textContent = err.message;
      });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var token = input.value.trim();
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
    show();
  });
  show();
})();
`;
