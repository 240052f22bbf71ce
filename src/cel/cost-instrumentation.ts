import { chargeCost } from './cost';

/**
 * The library's expression nodes, as far as metering needs them: each node evaluates
 * through `evaluate`, and macro expansions hang off `meta` (an alternate node or a macro
 * object holding nodes).
 */
interface ExpressionNode {
  args: unknown;
  meta: { alternate?: ExpressionNode; macro?: { evaluate(ev: unknown, macro: unknown, ctx: unknown): unknown }; evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown };
  evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown;
}

/** Only plain containers are walked: contexts and registries hang off nodes as class instances. */
function isPlainContainer(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

/**
 * Makes every node of a checked expression charge one cost unit per evaluation. The
 * library evaluates children through `evaluator.run(node)`, which calls `node.evaluate`,
 * so an own `evaluate` on each node sees every step, including macro iterations.
 */
export function meterExpression(root: object): void {
  const NodeClass = root.constructor as new (...args: never[]) => ExpressionNode;
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (value instanceof NodeClass) {
      meterNode(value);
      visit(value.args);
      visit(value.meta.alternate);
      visit(value.meta.macro);
      return;
    }
    if (!isPlainContainer(value)) return;
    for (const child of Object.values(value)) visit(child);
  };
  visit(root);
}

function meterNode(node: ExpressionNode): void {
  node.evaluate = function meteredEvaluate(ev: unknown, ast: unknown, ctx: unknown): unknown {
    chargeCost(1);
    const meta = node.meta;
    if (meta.alternate) return meta.alternate.evaluate(ev, meta.alternate, ctx);
    if (meta.macro) return meta.macro.evaluate(ev, meta.macro, ctx);
    return meta.evaluate.call(node, ev, ast, ctx);
  };
}
