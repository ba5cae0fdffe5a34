// "Import .canvas" on the boards page: a JSON Canvas file chosen by the person is posted as
// multipart/form-data to `POST /v1/boards/import` (the typed client does not build multipart
// bodies, so through authorizedFetch), then the new board opens. What the service could not keep
// as it was (its `warnings`) stays in a notice until dismissed; a refused file (400 invalid, 409,
// 413 too large) shows the service's message.
import { type ChangeEvent, useState } from 'react';
import { useLocation } from 'wouter';
import type { paths } from '@board-workspace/client';
import { authorizedFetch } from '../api';
import { ApiError, answerFields } from '../lib/api-error';
import { failureMessage, messageOf, OFFLINE_MESSAGE } from '../lib/request';
import { useToast } from '../ui/toast';

type BoardImport = paths['/v1/boards/import']['post']['responses'][201]['content']['application/json']['data'];

/** How many warnings the notice lists by name before "and N more". */
const WARNINGS_SHOWN = 3;

async function importCanvas(file: File): Promise<BoardImport> {
  const form = new FormData();
  form.append('file', file, file.name);
  let response: Response;
  try {
    response = await authorizedFetch('/v1/boards/import', { method: 'POST', body: form });
  } catch {
    throw new ApiError(OFFLINE_MESSAGE);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.status !== 201 || !body) {
    throw new ApiError(failureMessage(response.status, body, `Could not import ${file.name}`), answerFields(response, body));
  }
  return (body as { data: BoardImport }).data;
}

function warningsMessage(name: string, warnings: BoardImport['warnings']): string {
  const listed = warnings.slice(0, WARNINGS_SHOWN).map((w) => (w.path ? `${w.path}: ${w.message}` : w.message));
  const more = warnings.length > WARNINGS_SHOWN ? `; and ${warnings.length - WARNINGS_SHOWN} more` : '';
  return `Imported “${name}” with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}: ${listed.join('; ')}${more}`;
}

export function ImportBoard() {
  const toast = useToast();
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState(false);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // Cleared so that choosing the same file again imports it again.
    event.target.value = '';
    if (!file || busy) return;
    setBusy(true);
    try {
      const imported = await importCanvas(file);
      if (imported.warnings.length > 0) toast.info(warningsMessage(imported.board.name, imported.warnings), { keep: true });
      navigate(`/boards/${imported.board.id}`);
    } catch (error) {
      toast.error(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <label className="file-button" aria-disabled={busy}>
      {busy ? 'Importing…' : 'Import .canvas'}
      <input
        type="file"
        className="visually-hidden"
        aria-label="Import .canvas file"
        accept=".canvas,application/json"
        disabled={busy}
        onChange={(event) => void onFile(event)}
      />
    </label>
  );
}
