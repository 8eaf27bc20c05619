// diag: the Issue model (severity, code, message, path) every compile phase reports with.
// Pure data and formatting; mapping paths to file:line:column belongs to the loaders.
export {
  SEVERITIES,
  error,
  formatIssue,
  innerError,
  formatPath,
  hasErrors,
  prefixIssues,
  warning,
  type InnerPosition,
  type Issue,
  type IssuePath,
  type Severity,
} from "./issue.js";
