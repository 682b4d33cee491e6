import type { FastifyReply } from 'fastify';
import { RawJsonError, spliceRawProperty } from '../contract/json-splice.js';
import { ok } from '../contract/schemas/envelope.js';
import { withHashSlot, type HashSlot } from './http-cache.js';

/*
 * Sending a response part that is already JSON text without parsing it and serializing it again. The
 * rest of the payload still goes through the route's response schema serializer (reply.serialize); the
 * property `key` is serialized from a placeholder value and its text is then replaced by the raw text
 * (the splice: src/contract/json-splice.ts).
 */

/**
 * Sends JSON text given in parts as the response body, as it is. The parts are encoded straight into
 * one buffer: no joined string is made (a megabyte of text with any non-Latin-1 character is two
 * megabytes as a JavaScript string), and the ETag hook and the socket share the bytes. With
 * `hashSlot`, the caller vouches that every body sent with that slot has the same bytes: its ETag's
 * hash is made once (http-cache.ts).
 */
export function sendJsonParts(reply: FastifyReply, parts: readonly JsonPart[], hashSlot?: HashSlot): FastifyReply {
  const body = jsonBody(parts);
  return reply.type(JSON_TYPE).send(hashSlot ? withHashSlot(body, hashSlot) : body);
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A part of a JSON body: text, or bytes already encoded (UTF-8) such as the project detail's nearby block. */
export type JsonPart = string | Buffer;

/** JSON text given in parts, encoded into one buffer (see sendJsonParts). */
export function jsonBody(parts: readonly JsonPart[]): Buffer {
  if (parts.length === 1 && typeof parts[0] !== 'string') return parts[0];
  const body = Buffer.allocUnsafe(parts.reduce((size, part) => size + (typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length), 0));
  let offset = 0;
  for (const part of parts) offset += typeof part === 'string' ? body.write(part, offset, 'utf8') : part.copy(body, offset);
  return body;
}

/** The success envelope around data prepared as JSON text (`{"status":"success","data":…}`), as the route's serializer writes it. */
export function okJsonParts(dataJson: string): string[] {
  return [OK_HEAD, dataJson, OK_TAIL];
}

const [OK_HEAD, OK_TAIL] = spliceRawProperty(JSON.stringify(ok(null)), 'data', null, []);

/** An envelope whose `data.items` is JSON text prepared elsewhere (the search snapshot's lists), spliced in unparsed. */
export function sendWithRawItems(reply: FastifyReply, envelope: { status: 'success'; data: { items: unknown[] } }, itemsJson: string): FastifyReply {
  return sendSerializedWithRawItems(reply, serializeEnvelope(reply, envelope), itemsJson);
}

/** The envelope serialized by the route's response schema, with an empty items array (to be kept, see sendSerializedWithRawItems). */
export function serializeEnvelope(reply: FastifyReply, envelope: { status: 'success'; data: { items: unknown[] } }): string {
  return serializeText(reply, envelope);
}

/** The payload serialized by the route's response schema, as text. */
export function serializeText(reply: FastifyReply, payload: unknown): string {
  const serialized = reply.serialize(payload);
  if (typeof serialized !== 'string') throw new RawJsonError('the route serializer did not return text');
  return serialized;
}

/** sendWithRawItems with the envelope already serialized (serializeEnvelope); `hashSlot` as for sendJsonParts. */
export function sendSerializedWithRawItems(reply: FastifyReply, serializedEnvelope: string, itemsJson: string, hashSlot?: HashSlot): FastifyReply {
  return sendJsonParts(reply, spliceRawProperty(serializedEnvelope, 'items', [], [itemsJson]), hashSlot);
}
