/**
 * Go's side of a template: how Go values are represented (values, GoObject, a function's shape)
 * and ports of the Go libraries templates lean on (fmt, strconv, encoding/json, YAML and TOML
 * encoders, time, net/url, reflect, spf13/cast, shopspring/decimal). The ground floor: it knows
 * no template syntax, Sprig or Helm, and imports no sibling room.
 */
export { FuncError, goFunc, paramTypeName, type FuncMap, type GoFunction, type ParamType } from "./functions.js";
export { GoObject, type GoObjectKind, type GoObjectSpec } from "./go-object.js";
export { fromJson, GoInt, Iface, int, int64, isMap, isStringSlice, isTrue, kindOf, sortedKeys, stringSlice, toAny, typedSlice, typeName, unbox, type GoMap, type GoValue } from "./values.js";
export { formatRune, goQuote, runes } from "./go-quote.js";
export { goUnquote, parseGoInteger, parseNumber, type NumberValue } from "./go-literals.js";
export { formatValue, sprint, sprintf, sprintln } from "./go-fmt.js";
export { isEmpty, strval, toFloat64, toInt64 } from "./go-cast.js";
export { deepCopy, deepEqual, reflectKind, sliceElements } from "./go-reflect.js";
export { decimalOp } from "./go-decimal.js";
export { goBytes } from "./go-bytes.js";
export { jsonSyntaxError, marshalJson, unmarshalJson } from "./go-json.js";
export { toYaml, toYamlPretty } from "./to-yaml.js";
export { toToml } from "./to-toml.js";
export { formatTime, inZone, timeString, unixTime, ZERO_TIME, type GoTime } from "./go-time.js";
export { parseTime, TimeParseError } from "./go-time-parse.js";
export { formatDuration, parseDuration } from "./go-duration.js";
export { formatGoUrl, hostname, parseGoUrl, userString, type GoUrl } from "./go-url.js";
export { chargeChars, chargeElements, chargeParse, chargeWork, deadlineMessage, withWorkMeter, WORK_COSTS, WorkBudgetError, type RenderDeadline, type WorkMeter } from "./work-budget.js";
