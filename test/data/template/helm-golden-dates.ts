/** Helm golden cases for Sprig's date functions, with fixed instants (Unix seconds as Go ints, or toDate). */
import { helmCase, type HelmCase } from "./helm-golden-support.js";

const T = "(toDate \"2006-01-02T15:04:05Z07:00\" \"2024-03-05T07:08:09+02:00\")";
const dates: string[] = [
  "{{ date \"2006-01-02 15:04:05\" 1700000000 }}", "{{ date \"Mon Jan _2 3:4:5 PM 06 MST -0700 Z07:00\" 1700000000 }}", "{{ date \"January Monday 002 __2 pm .000 ,999 .999999999\" 1700000000 }}",
  "{{ htmlDate 0 }} {{ htmlDateInZone 0 \"America/New_York\" }}", "{{ dateInZone \"2006-01-02 15:04 -07:00\" 1700000000 \"Asia/Tokyo\" }}", "{{ dateInZone \"15:04 -0700\" 1700000000 \"Nope/Zone\" }}",
  "{{ dateInZone \"2006-01-02T15:04:05Z07:00\" 1720000000 \"Europe/Berlin\" }}", "{{ date_in_zone \"15:04\" 0 \"UTC\" }}",
  `{{ ${T} }}`, `{{ ${T}.Unix }} {{ unixEpoch ${T} }}`, `{{ ${T} | date "2006-01-02 15:04:05 -07:00" }}`, `{{ ${T}.UTC }}`, `{{ ${T}.Format "Jan 2, 2006 at 3:04pm (MST)" }}`,
  "{{ toDate \"2006-01-02\" \"2024-02-29\" }}", "{{ toDate \"2006-01-02\" \"2023-02-29\" }}", "{{ toDate \"2006-01-02\" \"not a date\" }}", "{{ mustToDate \"2006-01-02\" \"not a date\" }}",
  "{{ mustToDate \"2006-01-02\" \"2023-13-01\" }}", "{{ mustToDate \"2006-01-02\" \"2023-01-01 extra\" }}", "{{ toDate \"02/01/2006 15:04:05.000\" \"31/12/1999 23:59:58.123\" }}",
  "{{ toDate \"Jan 2 2006 3:04PM\" \"Feb 9 2021 11:30AM\" }}", "{{ toDate \"2006-01-02 15:04:05 MST\" \"2021-06-01 10:00:00 UTC\" }}", "{{ toDate \"2006-01-02T15:04:05Z07:00\" \"2021-06-01T10:00:00Z\" }}",
  "{{ toDate \"2006-01-02T15:04:05Z07:00\" \"2021-06-01T10:00:00.5-03:30\" }}", "{{ (toDate \"2006-01-02\" \"1969-07-20\").Unix }}", "{{ toDate \"2006-01-02\" \"0001-01-01\" | unixEpoch }}",
  `{{ dateModify "1h30m" ${T} }}`, `{{ dateModify "-24h" ${T} | date "2006-01-02" }}`, `{{ dateModify "bogus" ${T} }}`, `{{ mustDateModify "bogus" ${T} }}`, `{{ mustDateModify "1.5h" ${T} }}`,
  `{{ date_modify "90s" ${T} }}`, "{{ duration 95 }} {{ duration \"3600\" }} {{ duration \"x\" }} {{ duration 0 }} {{ duration 86400 }}", "{{ duration 1.5 }}",
  "{{ typeOf now }} {{ kindOf now }} {{ now | date \"2006\" | len }} {{ len (htmlDate now) }}", "{{ printf \"%T\" (toDate \"2006\" \"2020\") }}", `{{ toJson ${T} }}`, "{{ date \"2006\" .Values.f | len }}",
  `{{ ${T}.Year }} {{ ${T}.YearDay }} {{ ${T}.Day }} {{ ${T}.Hour }} {{ ${T}.Minute }} {{ ${T}.Second }}`, "{{ unixEpoch 5 }}", "{{ date \"2006\" (int64 1700000000) }}",
];

export const dateCases: readonly HelmCase[] = dates.map((t) => helmCase(t, { f: 1.5 }));
