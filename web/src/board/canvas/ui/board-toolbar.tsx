// The header's tools for someone who may edit the board: add a note, add a link, upload files
// (the owner only), and delete what is selected.
import type { ChangeEvent } from 'react';
import { LinkIcon, PlusIcon, TrashIcon, UploadIcon } from '../../icons';
import { UPLOAD_ACCEPT } from '../sync/use-uploads';

export interface BoardToolbarProps {
  canUpload: boolean;
  /** A note is being created (the button waits for it). */
  addingNote: boolean;
  onAddNote(): void;
  /** Opens the "Add link" dialog. */
  onAddLink(): void;
  onUpload(files: File[]): void;
  canDelete: boolean;
  onDelete(): void;
}

export function BoardToolbar({ canUpload, addingNote, onAddNote, onAddLink, onUpload, canDelete, onDelete }: BoardToolbarProps) {
  function onFileInput(event: ChangeEvent<HTMLInputElement>) {
    const files = [...(event.target.files ?? [])];
    // Cleared so that choosing the same file again still places it again.
    event.target.value = '';
    onUpload(files);
  }

  return (
    <div className="bw-toolbar" role="toolbar" aria-label="Board tools">
      <button type="button" className="bw-button is-primary" onClick={onAddNote} disabled={addingNote}>
        <PlusIcon /> Add note
      </button>
      <button type="button" className="bw-button" onClick={onAddLink}>
        <LinkIcon /> Add link
      </button>
      {canUpload && (
        <label className="bw-button">
          <UploadIcon /> Upload file
          <input
            type="file"
            className="bw-visually-hidden"
            aria-label="Upload image, PDF or document"
            accept={UPLOAD_ACCEPT}
            multiple
            onChange={onFileInput}
          />
        </label>
      )}
      <button type="button" className="bw-button" aria-label="Delete selected" disabled={!canDelete} onClick={onDelete}>
        <TrashIcon /> Delete
      </button>
    </div>
  );
}
