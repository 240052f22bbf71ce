export { loadCelLibrary } from './cel-library';
export { CelBudgetExceededError, DEFAULT_COST_LIMIT, EvaluationBudget } from './cost';
export {
  CelCompileError,
  CelCompileErrorType,
  CelEnvironment,
  CelEnvironmentOptions,
  CelEvaluationError,
  CelObjectSchema,
  CelProgram,
  CelTypeName,
  CelVariableType,
  CompileOptions,
} from './environment';
export { Quantity, QuantityParseError } from '../apimachinery/quantity';
export { UrlParseError, UrlValue } from './url-value';
