// Response serializers compiled on first use. Fastify compiles a serializer (fast-json-stringify:
// generated code, then eval) for every status code of every route's response schema when the app
// starts: two thirds of building the app, over a second of CPU, most of it for answers a process
// may never give. Compiled on a route's first answer of a status instead, each the same function.
// A schema it cannot compile now fails that answer (500) rather than the start;
// test/openapi-responses.test.ts reaches every route.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's own serializer factory, each serializer it makes compiled when first called. */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => {
      serialize ??= compile(route);
      return serialize(doc);
    };
  };
};
