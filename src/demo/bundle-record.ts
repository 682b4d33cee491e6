/*
 * Every table of the demo bundle is a list of loose rows (the importer checks them against the bundle
 * spec), so the generator's modules share this one row type instead of declaring one per table.
 */

export type Rec = Record<string, unknown>;
