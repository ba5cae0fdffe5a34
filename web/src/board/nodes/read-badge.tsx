// A readable card's reading state, under its body (issue 29): being read (with the seconds it has
// taken), searchable (with its passages and when it was read: the index's `indexed_at`, else the
// `read_at` the service writes on a link, video or document), behind its text, failed and why (the
// job's `error`), or not read yet. Each offers "Read again" (or "Read") to someone who may
// vectorize; nothing else starts a read by hand, as what is added is read by itself
// (canvas/sync/use-auto-read.ts) unless the board's `auto_read` is off.
import { useContext, useEffect, useState } from 'react';
import { IndexContext, type IndexState, JobsContext, type JobState, ReadSoonContext, useBoardActions } from '../board-context';
import { formatDateTime } from '../../lib/format';

/** The node types whose cards show a reading state. */
export const READABLE_KINDS = new Set(['note', 'document', 'pdf', 'url', 'video']);

const passages = (n: number) => `${n} ${n === 1 ? 'passage' : 'passages'}`;

/** "just now", "5 min ago", "3 h ago", else the date. */
function readWhen(iso: string, now: number): string {
  const seconds = (now - Date.parse(iso)) / 1000;
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return formatDateTime(iso);
}

export function ReadBadge(props: { id: string; kind: string; data: Record<string, unknown>; hasContent: boolean }) {
  const { id, kind, data, hasContent } = props;
  const job = useContext(JobsContext)[id];
  const index = useContext(IndexContext)[id];
  const soon = useContext(ReadSoonContext).has(id);
  if (!READABLE_KINDS.has(kind)) return null;
  if (job && job.status !== 'completed' && job.status !== 'failed') return <ReadingBadge job={job} again={index !== undefined} />;
  if (job?.status === 'failed') return <FailedBadge id={id} job={job} />;
  if (soon) {
    return (
      <div className="bw-job is-busy" role="status">
        Read when the typing stops
      </div>
    );
  }
  const readAt = index?.indexedAt ?? (typeof data.read_at === 'string' ? data.read_at : undefined);
  if (index || job?.status === 'completed') return <SearchableBadge id={id} index={index} job={job} readAt={readAt} />;
  return hasContent ? <UnreadBadge id={id} /> : null;
}

function ReadAgain({ id, label = 'Read again' }: { id: string; label?: string }) {
  const { vectorize, canVectorize } = useBoardActions();
  if (!canVectorize) return null;
  return (
    <button type="button" className="bw-link-button nodrag" onClick={() => vectorize(id)}>
      {label}
    </button>
  );
}

function ReadingBadge({ job, again }: { job: JobState; again: boolean }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.round((now - job.startedAt) / 1000));
  return (
    <div className="bw-job is-busy" role="status">
      <span className="bw-spinner" aria-hidden="true" />
      {job.status === 'waiting'
        ? 'Waiting to be read…'
        : job.status === 'starting'
          ? 'Starting to read…'
          : `${again ? 'Reading again' : 'Reading'}… ${seconds} s`}
    </div>
  );
}

function SearchableBadge(props: { id: string; index: IndexState | undefined; job: JobState | undefined; readAt: string | undefined }) {
  const { id, index, job, readAt } = props;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  if (index?.behind) {
    return (
      <div className="bw-job is-behind" role="status">
        Changed since it was read
        <ReadAgain id={id} />
      </div>
    );
  }
  const chunks = index?.chunks ?? job?.chunks;
  return (
    <div className="bw-job is-done" role="status">
      <span>
        ✓ Searchable{chunks !== undefined ? ` · ${passages(chunks)}` : ''}
        {readAt && (
          <>
            {' · '}
            <time dateTime={readAt} title={`Read ${formatDateTime(readAt)}`}>
              read {readWhen(readAt, now)}
            </time>
          </>
        )}
      </span>
      <ReadAgain id={id} />
    </div>
  );
}

function FailedBadge({ id, job }: { id: string; job: JobState }) {
  const { dismissJob } = useBoardActions();
  return (
    <div className="bw-job is-failed" role="alert">
      <span>Could not read it: {job.error}</span>
      <ReadAgain id={id} />
      <button type="button" className="bw-link-button nodrag" onClick={() => dismissJob(id)} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

function UnreadBadge({ id }: { id: string }) {
  const { autoRead, canVectorize } = useBoardActions();
  return (
    <div className="bw-job" role="status">
      {autoRead || !canVectorize ? 'Not read yet' : 'Not read (automatic reading is off)'}
      <ReadAgain id={id} label="Read" />
    </div>
  );
}
