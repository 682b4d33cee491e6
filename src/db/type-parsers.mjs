// How column values are read, for both drivers and for the PGlite worker (plain JavaScript so that a
// worker thread can load it without a TypeScript loader). Rows look the same whichever database is
// behind: numeric/bigint as numbers, timestamps as RFC 3339 strings, dates as YYYY-MM-DD.

/** The OIDs of the types whose text form we parse. */
export const OID = { int8: 20, numeric: 1700, timestamp: 1114, timestamptz: 1184, date: 1082 };

const toNumber = (value) => Number(value);
/*
 * PostgreSQL writes a timestamp as `YYYY-MM-DD hh:mm:ss[.ffffff][+hh[:mm]]`. Not being ISO 8601, that
 * went to Date's legacy parser, which reads the years 0001 to 0099 (storable: the import takes
 * 0001-01-01 to 9999-12-31) as 1950 to 2049 and 1900 to 1949. Written as ISO 8601 (`T`, `+hh:mm`),
 * Date reads every four-digit year as it is.
 */
const isoOf = (value) => {
  const sign = value.charCodeAt(value.length - 3);
  return `${value.slice(0, 10)}T${value.slice(11)}${sign === 43 || sign === 45 ? ':00' : ''}`;
};
const toIsoTimestamp = (value) => new Date(isoOf(value)).toISOString();
const toIsoTimestampUtc = (value) => new Date(`${isoOf(value)}Z`).toISOString();

export const textParsers = {
  [OID.int8]: toNumber,
  [OID.numeric]: toNumber,
  [OID.timestamptz]: toIsoTimestamp,
  [OID.timestamp]: toIsoTimestampUtc,
  [OID.date]: (value) => value,
};
