// The logger domain code writes to, so that it names no framework's type: the app hands down its
// own (Fastify's pino logger fits this), a test may hand down anything that does.

/** One level's method: structured fields first (`err` for an error), then the message. */
export type LogMethod = (fields: object, message: string) => void;

export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  /** A logger that adds these fields to every line. */
  child(fields: Record<string, unknown>): Logger;
}
