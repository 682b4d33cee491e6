import type { FastifyReply } from 'fastify';

/*
 * Sending a response part that is already JSON text without parsing it and serializing it again. The
 * rest of the payload still goes through the route's response schema serializer (reply.serialize); the
 * property `key` is serialized from a placeholder value and its text is then replaced by the raw text.
 *
 * The replacement is unambiguous: in serialized JSON a `"` inside a string is escaped, so the
 * unescaped sequence `"key":<placeholder>` can only be the property itself. It is still checked to
 * occur exactly once, so a schema change that renames or nests the property fails loudly, not silently.
 */

export class RawJsonError extends Error {}

/**
 * The payload serialized by the route's schema, with the value of `key` replaced by the raw JSON text
 * given in parts; returned in parts too (see sendJsonParts).
 */
export function serializeWithRawProperty(
  reply: FastifyReply,
  payload: unknown,
  key: string,
  placeholder: unknown,
  rawParts: readonly string[],
): string[] {
  return spliceRawProperty(serializeText(reply, payload), key, placeholder, rawParts);
}

export function spliceRawProperty(serialized: string, key: string, placeholder: unknown, rawParts: readonly string[]): string[] {
  const marker = `${JSON.stringify(key)}:${JSON.stringify(placeholder)}`;
  const at = serialized.indexOf(marker);
  if (at < 0 || serialized.indexOf(marker, at + marker.length) >= 0) {
    throw new RawJsonError(`expected the property ${key} exactly once in the serialized response`);
  }
  const valueAt = at + JSON.stringify(key).length + 1;
  return [serialized.slice(0, valueAt), ...rawParts, serialized.slice(at + marker.length)];
}

/**
 * Sends JSON text given in parts as the response body, as it is. The parts are encoded straight into
 * one buffer: no joined string is made (a megabyte of text with any non-Latin-1 character is two
 * megabytes as a JavaScript string), and the ETag hook and the socket share the bytes.
 */
export function sendJsonParts(reply: FastifyReply, parts: readonly string[]): FastifyReply {
  const body = Buffer.allocUnsafe(parts.reduce((size, part) => size + Buffer.byteLength(part, 'utf8'), 0));
  let offset = 0;
  for (const part of parts) offset += body.write(part, offset, 'utf8');
  return reply.type('application/json; charset=utf-8').send(body);
}

/** An envelope whose `data.items` is JSON text prepared elsewhere (the search snapshot's lists), spliced in unparsed. */
export function sendWithRawItems(reply: FastifyReply, envelope: { status: 'success'; data: { items: unknown[] } }, itemsJson: string): FastifyReply {
  return sendSerializedWithRawItems(reply, serializeEnvelope(reply, envelope), itemsJson);
}

/** The envelope serialized by the route's response schema, with an empty items array (to be kept, see sendSerializedWithRawItems). */
export function serializeEnvelope(reply: FastifyReply, envelope: { status: 'success'; data: { items: unknown[] } }): string {
  return serializeText(reply, envelope);
}

/** The payload serialized by the route's response schema, as text. */
function serializeText(reply: FastifyReply, payload: unknown): string {
  const serialized = reply.serialize(payload);
  if (typeof serialized !== 'string') throw new RawJsonError('the route serializer did not return text');
  return serialized;
}

/** sendWithRawItems with the envelope already serialized (serializeEnvelope). */
export function sendSerializedWithRawItems(reply: FastifyReply, serializedEnvelope: string, itemsJson: string): FastifyReply {
  return sendJsonParts(reply, spliceRawProperty(serializedEnvelope, 'items', [], [itemsJson]));
}
