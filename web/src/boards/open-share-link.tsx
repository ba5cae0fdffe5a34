// /share/:token: a share link opened by a signed-in person (one signed out signs in first and comes
// back here). The service makes them a member with the link's role (POST /v1/share-links/accept),
// and the board opens; a revoked or unknown link says so.
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../api';
import { ApiError, messageOf, unwrap } from '../lib/request';
import { useDocumentTitle } from '../lib/title';
import { Notice } from '../ui/toast';

export function OpenShareLink({ token }: { token: string }) {
  useDocumentTitle('Opening a shared board');
  const [, navigate] = useLocation();
  const [failure, setFailure] = useState<{ message: string; gone: boolean }>();
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is Try again's: it asks again.
  useEffect(() => {
    let live = true;
    unwrap(api.POST('/v1/share-links/accept', { body: { token } }), 'Could not open the link').then(
      (accepted) => live && navigate(`/boards/${accepted.data.board_id}`, { replace: true }),
      (error: unknown) => live && setFailure({ message: messageOf(error), gone: error instanceof ApiError && error.status === 404 }),
    );
    return () => {
      live = false;
    };
  }, [token, attempt]);

  return (
    <main className="page">
      <h1>{failure?.gone ? 'This link no longer works' : 'Opening the shared board…'}</h1>
      {failure?.gone && <p>It may have been revoked by the board's owner. Ask them for a new one.</p>}
      {failure && !failure.gone && (
        <Notice
          tone="error"
          message={failure.message}
          action={{
            label: 'Try again',
            run: () => {
              setFailure(undefined);
              setAttempt((n) => n + 1);
            },
          }}
        />
      )}
      <p>
        <Link href="/boards">Go to your boards</Link>
      </p>
    </main>
  );
}
