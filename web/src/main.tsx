// Entry point of the web app (placeholder until the app shell lands).
import { createRoot } from 'react-dom/client';
import { api } from './api';

void api;
createRoot(document.getElementById('root')!).render(<p>Boards</p>);
