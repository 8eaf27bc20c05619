/**
 * Names of every function a Helm 3 chart template may call (Sprig v3's TxtFuncMap without env /
 * expandenv, plus Helm's engine functions). Templates of `spec.helm` are parsed with these
 * declared, so a chart that calls one the engine does not implement yet still compiles and fails
 * at render time with a message naming the function (not at compile time as a syntax error).
 */
const SPRIG = `hello ago date date_in_zone date_modify dateInZone dateModify duration durationRound htmlDate
htmlDateInZone must_date_modify mustDateModify mustToDate now toDate unixEpoch abbrev abbrevboth
trunc trim upper lower title untitle substr repeat trimall trimAll trimSuffix trimPrefix nospace
initials randAlphaNum randAlpha randAscii randNumeric swapcase shuffle snakecase camelcase kebabcase
wrap wrapWith contains hasPrefix hasSuffix quote squote cat indent nindent replace plural sha1sum
sha256sum adler32sum toString atoi int64 int float64 seq toDecimal split splitList splitn toStrings
until untilStep add1 add sub div mod mul randInt add1f addf subf divf mulf biggest max min maxf minf
ceil floor round join sortAlpha default empty coalesce all any compact mustCompact fromJson toJson
toPrettyJson toRawJson mustFromJson mustToJson mustToPrettyJson mustToRawJson ternary deepCopy
mustDeepCopy typeOf typeIs typeIsLike kindOf kindIs deepEqual b64enc b64dec b32enc b32dec tuple list
dict get set unset hasKey pluck keys pick omit merge mergeOverwrite mustMerge mustMergeOverwrite
values append push mustAppend mustPush prepend mustPrepend first mustFirst rest mustRest last
mustLast initial mustInitial reverse mustReverse uniq mustUniq without mustWithout has mustHas slice
mustSlice concat dig chunk mustChunk bcrypt htpasswd genPrivateKey derivePassword buildCustomCert
genCA genCAWithKey genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey
encryptAES decryptAES uuidv4 semver semverCompare fail regexMatch mustRegexMatch regexFindAll
mustRegexFindAll regexFind mustRegexFind regexReplaceAll mustRegexReplaceAll regexReplaceAllLiteral
mustRegexReplaceAllLiteral regexSplit mustRegexSplit regexQuoteMeta urlParse urlJoin getHostByName
osBase osClean osDir osExt osIsAbs base dir clean ext isAbs`;

const HELM =
  "include tpl required toYaml toYamlPretty fromYaml fromYamlArray toJson fromJson fromJsonArray toToml fromToml lookup";

export const HELM_FUNCTION_NAMES: readonly string[] = [
  ...new Set(`${SPRIG} ${HELM}`.split(/\s+/).filter((n) => n !== "")),
];
