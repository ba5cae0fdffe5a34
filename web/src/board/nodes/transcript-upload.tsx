// A video card's transcript (issue 29): the owner gives it a WebVTT (.vtt) or SubRip (.srt) file,
// uploaded as an asset of the board; the video is then read from it (`transcript_asset_id`), and
// the asset's id and file name are kept in the node's data (`transcript_asset_id`,
// `transcript_name`) so "Read again", here or on anyone's page, reads the same transcript.
import { type ChangeEvent, useState } from 'react';
import { uploadAsset } from '../board-api';
import { useBoardActions } from '../board-context';
import { str } from './node-frame';

const TRANSCRIPT_NAME = /\.(vtt|srt)$/i;

export function TranscriptUpload({ id, data, title }: { id: string; data: Record<string, unknown>; title: string }) {
  const { boardId, canUpload, vectorize, cards } = useBoardActions();
  const [state, setState] = useState<{ progress?: number; error?: string }>({});
  const name = str(data.transcript_name);
  if (!canUpload || !cards) return name ? <div className="bw-transcript">Transcript: {name}</div> : null;

  function chosen(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    // Cleared so that choosing the same file again uploads it again.
    event.target.value = '';
    if (!file) return;
    if (!TRANSCRIPT_NAME.test(file.name)) {
      setState({ error: `${file.name}: a transcript is a .vtt or .srt file` });
      return;
    }
    setState({ progress: 0 });
    uploadAsset(boardId, file, (progress) => setState({ progress })).done.then(
      (asset) => {
        setState({});
        cards?.updateNodeData(id, { transcript_asset_id: asset.id, transcript_name: file.name });
        vectorize(id, { transcriptAssetId: asset.id });
      },
      (error: Error) => setState({ error: error.message }),
    );
  }

  return (
    <div className="bw-transcript nodrag">
      {name && <span>Transcript: {name}</span>}
      {state.progress !== undefined ? (
        <span role="status">Uploading the transcript… {Math.round(state.progress * 100)}%</span>
      ) : (
        <label className="bw-link-button">
          {name ? 'Replace transcript' : 'Add transcript (.vtt, .srt)'}
          <input
            type="file"
            className="bw-visually-hidden"
            aria-label={`Transcript of ${title}`}
            accept=".vtt,.srt,text/vtt,application/x-subrip"
            onChange={chosen}
          />
        </label>
      )}
      {state.error && (
        <span className="bw-error" role="alert">
          {state.error}
        </span>
      )}
    </div>
  );
}
