export { CelCompileError, CelEnvironment, CelEvaluationError, CelObjectSchema, CelProgram } from './environment';
export { Quantity } from './quantity-value';
