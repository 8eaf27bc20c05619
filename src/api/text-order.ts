/**
 * Orders strings by UTF-16 code unit, as `<` does and as Go's sort.Strings (byte order) does for
 * the ASCII that names Kubernetes objects. Use it, not `localeCompare`, wherever an order is
 * written somewhere or shown: ICU collation depends on the process's locale (LANG), ignores
 * control characters, and folds case, so the same input sorted differently on two machines. It
 * is also the only reason a controller would page ICU's collation data (~2.7 MB resident).
 */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
