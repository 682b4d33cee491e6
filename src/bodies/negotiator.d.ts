/*
 * The part of `negotiator` 1.x (jshttp, ships no types) that compression.ts uses. @types/negotiator
 * describes 0.6, which lacks the `preferred` option that breaks ties in the service's favour.
 */
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The available encodings the client accepts, best first; ties go to `preferred` order. */
    encodings(available: readonly string[], options?: { preferred?: readonly string[] }): string[];
  }
}
