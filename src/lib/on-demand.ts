/*
 * Something started the first time it is needed, once (concurrent first asks share one start), and
 * stopped with its owner: a start that fails is tried again by the next ask; once closed, nothing is
 * started and an ask is refused with `closedError()`; closing waits for a start in flight and stops what
 * it started. POST /mcp starts its MCP server (and loads the SDK) so (src/http/mcp/http-endpoint.ts).
 */
export interface OnDemand<T> {
  /** The started value, starting it now if it is not. */
  get(): Promise<T>;
  /** No more starts; stops the value if one was started (or is starting). */
  close(): Promise<void>;
}

export function onDemand<T>(start: () => Promise<T>, stop: (value: T) => Promise<void>, closedError: () => Error): OnDemand<T> {
  let started: Promise<T> | undefined;
  let closed = false;
  return {
    get() {
      if (closed) return Promise.reject(closedError());
      return (started ??= start().catch((error: unknown) => {
        started = undefined;
        throw error;
      }));
    },
    async close() {
      closed = true;
      const value = await started?.then(
        (running) => ({ running }),
        () => undefined,
      );
      if (value) await stop(value.running);
    },
  };
}
