// Accounts and the caller: a local account as a session names it, and GET /v1/me's answer.
import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from './common.js';

export const Account = Type.Object({ id: Uuid, email: Type.String() });
export type Account = Static<typeof Account>;

export const Me = Type.Object({
  id: Uuid,
  email: Type.Union([Type.String(), Type.Null()]),
  auth: Type.Union([Type.Literal('jwt'), Type.Literal('api_key')], { description: 'How the caller authenticated' }),
  scopes: Type.Array(Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin')])),
});
export type Me = Static<typeof Me>;
