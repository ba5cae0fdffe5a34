// Assets: an uploaded file as answered (the upload itself is multipart/form-data, not a schema).
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp } from './common.js';

export const Asset = Type.Object({
  id: Type.String({ description: 'Equals the filename' }),
  url: Type.String({ description: 'Where the file is served: an unguessable address, usable without credentials (<img src>)' }),
  filename: Type.String({ description: '<epoch_millis>-<original name, reduced to a safe form>' }),
  storage_path: Type.String({ description: '<user>/<board>/<filename>' }),
  size: Type.Integer({ description: 'Bytes' }),
  content_type: Type.String({
    description:
      'application/pdf, image/png, image/jpeg, image/gif or image/webp, judged by the bytes; for text files, which carry no ' +
      'signature, the extension and the first bytes together: text/vtt (.vtt beginning WEBVTT), application/x-subrip (.srt ' +
      'beginning with a numbered cue), text/html (.html beginning with a doctype or <html>), text/markdown (.md), text/plain ' +
      '(.txt), all UTF-8; application/vnd.openxmlformats-officedocument.wordprocessingml.document (.docx, by its bytes)',
  }),
  created_at: Timestamp,
});
export type Asset = Static<typeof Asset>;
