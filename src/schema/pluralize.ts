/**
 * English pluralisation with the rules of gobuffalo/flect (v1), which kro uses to name CRDs:
 * the plural must match kro's or an existing CRD would not be found. Lookup order as in flect:
 * acronyms, known plurals (unchanged), dictionary words, then compound/suffix rules in priority
 * order, then "ends in s → unchanged", else append "s". The tables are data, re-typed here.
 */

/** flect's acronyms (compared upper-case): pluralised by appending "s" (or "es" after an s). */
const ACRONYMS = new Set(
  (
    "OK UTF8 HTML JSON JWT ID UUID SQL ACK ACL ADSL AES ANSI API ARP ATM BGP BSS CCITT CHAP CIDR CIR CLI CPE CPU CRC CRT " +
    "CSMA CMOS DCE DEC DES DHCP DNS DRAM DSL DSLAM DTE DMI EHA EIA EIGRP EOF ESS FCC FCS FDDI FTP GBIC GEPOF HDLC HTTP HTTPS IANA ICMP " +
    "IDF IDS IEEE IETF IMAP IP IPS ISDN ISP LACP LAN LAPB LAPF LLC MAC MC MDF MIB MPLS MTU NAC NAT NBMA NIC NRZ NRZI NVRAM OIDC OSI " +
    "OSPF OUI PAP PAT PC PIM PCM PDU POP3 POTS PPP PPTP PTT PVST RAM RARP RFC RIP RLL ROM RSTP RTP RCP SDLC SFD SFP SLARP SLIP SMTP SNA " +
    "SNAP SNMP SOF SRAM SSH SSID STP SYN TDM TFTP TIA TOFU UDP URL URI USB UTP VC VLAN VLSM VPN W3C WAN WEP WPA WWW"
  ).split(" "),
);

interface Word {
  singular: string;
  plural: string;
  alternative?: string;
  unidirectional?: boolean;
  exact?: boolean;
}

const w = (singular: string, plural: string, extra: Partial<Word> = {}): Word => ({ singular, plural, ...extra });

/** flect's dictionary (uncountables have plural = singular). Order matters for compound rules. */
const DICTIONARY: readonly Word[] = [
  w("aircraft", "aircraft"),
  w("beef", "beef", { alternative: "beefs" }),
  w("bison", "bison"),
  w("blues", "blues", { unidirectional: true }),
  w("chassis", "chassis"),
  w("deer", "deer"),
  w("fish", "fish", { alternative: "fishes" }),
  w("moose", "moose"),
  w("police", "police"),
  w("salmon", "salmon", { alternative: "salmons" }),
  w("series", "series"),
  w("sheep", "sheep"),
  w("shrimp", "shrimp", { alternative: "shrimps" }),
  w("species", "species"),
  w("swine", "swine", { alternative: "swines" }),
  w("trout", "trout", { alternative: "trouts" }),
  w("tuna", "tuna", { alternative: "tunas" }),
  w("you", "you"),
  w("child", "children"),
  w("ox", "oxen", { exact: true }),
  w("foot", "feet"),
  w("goose", "geese"),
  w("man", "men"),
  w("human", "humans"),
  w("louse", "lice", { exact: true }),
  w("mouse", "mice"),
  w("tooth", "teeth"),
  w("woman", "women"),
  w("die", "dice", { exact: true }),
  w("person", "people"),
  w("adieu", "adieux", { alternative: "adieus" }),
  w("fabliau", "fabliaux"),
  w("bureau", "bureaus", { alternative: "bureaux" }),
  w("criterion", "criteria"),
  w("ganglion", "ganglia", { alternative: "ganglions" }),
  w("lexicon", "lexica", { alternative: "lexicons" }),
  w("mitochondrion", "mitochondria", { alternative: "mitochondrions" }),
  w("noumenon", "noumena"),
  w("phenomenon", "phenomena"),
  w("taxon", "taxa"),
  w("media", "media"),
  w("medium", "media", { alternative: "mediums", unidirectional: true }),
  w("stadium", "stadiums", { alternative: "stadia" }),
  w("aquarium", "aquaria", { alternative: "aquariums" }),
  w("auditorium", "auditoria", { alternative: "auditoriums" }),
  w("symposium", "symposia", { alternative: "symposiums" }),
  w("curriculum", "curriculums", { alternative: "curricula" }),
  w("quota", "quotas"),
  w("alumnus", "alumni", { alternative: "alumnuses" }),
  w("bacillus", "bacilli"),
  w("cactus", "cacti", { alternative: "cactuses" }),
  w("coccus", "cocci"),
  w("focus", "foci", { alternative: "focuses" }),
  w("locus", "loci", { alternative: "locuses" }),
  w("nucleus", "nuclei", { alternative: "nucleuses" }),
  w("octopus", "octupuses", { alternative: "octopi" }),
  w("radius", "radii", { alternative: "radiuses" }),
  w("syllabus", "syllabi"),
  w("corpus", "corpora", { alternative: "corpuses" }),
  w("genus", "genera"),
  w("alumna", "alumnae"),
  w("vertebra", "vertebrae"),
  w("differentia", "differentiae"),
  w("minutia", "minutiae"),
  w("vita", "vitae"),
  w("larva", "larvae"),
  w("postcava", "postcavae"),
  w("praecava", "praecavae"),
  w("uva", "uvae"),
  w("apex", "apices", { alternative: "apexes" }),
  w("codex", "codices", { alternative: "codexes" }),
  w("index", "indices", { alternative: "indexes" }),
  w("latex", "latices", { alternative: "latexes" }),
  w("vertex", "vertices", { alternative: "vertexes" }),
  w("vortex", "vortices", { alternative: "vortexes" }),
  w("appendix", "appendices", { alternative: "appendixes" }),
  w("radix", "radices", { alternative: "radixes" }),
  w("helix", "helices", { alternative: "helixes" }),
  w("axis", "axes", { exact: true }),
  w("crisis", "crises"),
  w("ellipsis", "ellipses", { unidirectional: true }),
  w("genesis", "geneses"),
  w("oasis", "oases"),
  w("thesis", "theses"),
  w("testis", "testes"),
  w("base", "bases"),
  w("basis", "bases", { unidirectional: true }),
  w("alias", "aliases", { exact: true }),
  w("vedalia", "vedalias"),
  w("use", "uses", { exact: true }),
  w("abuse", "abuses"),
  w("cause", "causes"),
  w("clause", "clauses"),
  w("cruse", "cruses"),
  w("excuse", "excuses"),
  w("fuse", "fuses"),
  w("house", "houses"),
  w("misuse", "misuses"),
  w("muse", "muses"),
  w("pause", "pauses"),
  w("ache", "aches"),
  w("topaz", "topazes"),
  w("buffalo", "buffaloes", { alternative: "buffalos" }),
  w("potato", "potatoes"),
  w("tomato", "tomatoes"),
  w("equipment", "equipment"),
  w("information", "information"),
  w("jeans", "jeans"),
  w("money", "money"),
  w("news", "news"),
  w("rice", "rice"),
  w("dwarf", "dwarfs", { alternative: "dwarves" }),
  w("hoof", "hoofs", { alternative: "hooves" }),
  w("thief", "thieves"),
  w("chive", "chives"),
  w("hive", "hives"),
  w("move", "moves"),
  w("movie", "movies"),
  w("cookie", "cookies"),
  w("pretorium", "pretoriums"),
  w("agenda", "agendas"),
  w("formula", "formulas", { alternative: "formulae" }),
  w("shoe", "shoes"),
  w("toe", "toes", { exact: true }),
  w("graffiti", "graffiti"),
  w("ID", "IDs", { exact: true }),
];

/** flect's suffix rules; the order is the priority (first match wins). */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ["tive", "tives"],
  ["eaf", "eaves"],
  ["oaf", "oaves"],
  ["afe", "aves"],
  ["arf", "arves"],
  ["rfe", "rves"],
  ["rf", "rves"],
  ["lf", "lves"],
  ["fe", "ves"],
  ["ay", "ays"],
  ["ey", "eys"],
  ["oy", "oys"],
  ["quy", "quies"],
  ["uy", "uys"],
  ["y", "ies"],
  ["eau", "eaux"],
  ["bula", "bulae"],
  ["dula", "bulae"],
  ["lula", "bulae"],
  ["nula", "bulae"],
  ["vula", "bulae"],
  ["hedron", "hedra"],
  ["ium", "ia"],
  ["seum", "seums"],
  ["eum", "ea"],
  ["oum", "oa"],
  ["stracum", "straca"],
  ["dum", "da"],
  ["elum", "ela"],
  ["ilum", "ila"],
  ["olum", "ola"],
  ["ulum", "ula"],
  ["llum", "lla"],
  ["ylum", "yla"],
  ["imum", "ima"],
  ["ernum", "erna"],
  ["gnum", "gna"],
  ["brum", "bra"],
  ["crum", "cra"],
  ["terum", "tera"],
  ["serum", "sera"],
  ["trum", "tra"],
  ["antum", "anta"],
  ["atum", "ata"],
  ["entum", "enta"],
  ["etum", "eta"],
  ["itum", "ita"],
  ["otum", "ota"],
  ["utum", "uta"],
  ["ctum", "cta"],
  ["ovum", "ova"],
  ["trix", "trices"],
  ["iasis", "iases"],
  ["mesis", "meses"],
  ["kinesis", "kineses"],
  ["resis", "reses"],
  ["gnosis", "gnoses"],
  ["opsis", "opses"],
  ["ysis", "yses"],
  ["ouse", "ouses"],
  ["lause", "lauses"],
  ["us", "uses"],
  ["ch", "ches"],
  ["io", "ios"],
  ["sh", "shes"],
  ["ss", "sses"],
  ["ez", "ezzes"],
  ["iz", "izzes"],
  ["tz", "tzes"],
  ["zz", "zzes"],
  ["ano", "anos"],
  ["lo", "los"],
  ["to", "tos"],
  ["oo", "oos"],
  ["o", "oes"],
  ["x", "xes"],
  ["S", "Ses"],
];

interface Rule {
  readonly suffix: string;
  readonly replace?: readonly [string, string];
}

const SINGLE_TO_PLURAL = new Map(DICTIONARY.map((d) => [d.singular, d.plural]));
const PLURAL_TO_SINGLE = new Set(
  DICTIONARY.filter((d) => d.unidirectional !== true).flatMap((d) => [
    d.plural,
    ...(d.alternative === undefined ? [] : [d.alternative]),
  ]),
);

/** Each rule first recognises an already-plural suffix (keep as is), then the singular one. */
const RULES: readonly Rule[] = [
  ...[...DICTIONARY]
    .reverse()
    .filter((d) => d.exact !== true)
    .flatMap((d): Rule[] => [{ suffix: d.plural }, { suffix: d.singular, replace: [d.singular, d.plural] }]),
  ...SUFFIXES.flatMap(([singular, plural]): Rule[] => [
    { suffix: plural },
    { suffix: singular, replace: [singular, plural] },
  ]),
];

export function pluralize(word: string): string {
  if (word === "") return "";
  if (ACRONYMS.has(word.toUpperCase())) return word + (/s$/i.test(word) ? "es" : "s");
  const lower = word.toLowerCase();
  if (PLURAL_TO_SINGLE.has(lower)) return word;
  const known = SINGLE_TO_PLURAL.get(lower);
  if (known !== undefined) return word === capitalize(word) && word !== lower ? capitalize(known) : known;
  for (const rule of RULES) {
    if (!lower.endsWith(rule.suffix)) continue;
    if (rule.replace === undefined) return word;
    return word.slice(0, word.length - rule.replace[0].length) + rule.replace[1];
  }
  return lower.endsWith("s") ? word : `${word}s`;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
