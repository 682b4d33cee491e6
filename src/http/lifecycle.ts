/**
 * The process's place in its life, shared by the server (which sets it on SIGTERM) and the readiness
 * probe (which answers 503 while draining). See src/service/server.ts for the shutdown sequence.
 */
export interface Lifecycle {
  /** From SIGTERM on: still serving, but asking the load balancer to send nothing new. */
  draining: boolean;
}
