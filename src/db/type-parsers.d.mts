export declare const OID: { readonly int8: 20; readonly numeric: 1700; readonly timestamp: 1114; readonly timestamptz: 1184; readonly date: 1082 };
export declare const textParsers: Record<number, (value: string) => unknown>;
