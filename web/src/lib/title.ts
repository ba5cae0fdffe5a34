// The tab's title per page ("Trip plans · Board Workspace"), so tabs and history say where they lead.
import { useEffect } from 'react';

export const APP_NAME = 'Board Workspace';

export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
}
