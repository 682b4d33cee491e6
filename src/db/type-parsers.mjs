// How column values are read, for both drivers and for the PGlite worker (plain JavaScript so that a
// worker thread can load it without a TypeScript loader). Rows look the same whichever database is
// behind: numeric/bigint as numbers, timestamps as RFC 3339 strings, dates as YYYY-MM-DD.

/** The OIDs of the types whose text form we parse. */
export const OID = { int8: 20, numeric: 1700, timestamp: 1114, timestamptz: 1184, date: 1082 };

const toNumber = (value) => Number(value);
const toIsoTimestamp = (value) => new Date(value).toISOString();
const toIsoTimestampUtc = (value) => new Date(`${value}Z`).toISOString();

export const textParsers = {
  [OID.int8]: toNumber,
  [OID.numeric]: toNumber,
  [OID.timestamptz]: toIsoTimestamp,
  [OID.timestamp]: toIsoTimestampUtc,
  [OID.date]: (value) => value,
};
