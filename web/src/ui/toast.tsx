// The one way the app shows a message: `Notice` (inline, e.g. under a form) and toasts (the same
// component in a corner stack) through `useToast()`. Errors stay until dismissed and can carry a
// Retry action, so a failed save never silently drops what the person typed.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export type Tone = 'error' | 'info' | 'success';

export interface NoticeAction {
  label: string;
  run(): void;
}

export function Notice({
  tone,
  message,
  action,
  onDismiss,
}: {
  tone: Tone;
  message: string;
  action?: NoticeAction;
  onDismiss?: () => void;
}) {
  return (
    <div className={`notice notice-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      <span className="notice-message">{message}</span>
      {action && (
        <button type="button" className="button-small" onClick={action.run}>
          {action.label}
        </button>
      )}
      {onDismiss && (
        <button type="button" className="notice-close" aria-label="Dismiss" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}

interface Toast {
  id: number;
  tone: Tone;
  message: string;
  action?: NoticeAction;
}

export interface Toaster {
  error(message: string, retry?: () => void): void;
  /** With `keep`, stays until dismissed (something to read, such as an import's warnings). */
  info(message: string, options?: { keep?: boolean }): void;
  success(message: string): void;
}

const ToastContext = createContext<Toaster | undefined>(undefined);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(0);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((toast) => toast.id !== id)), []);
  const push = useCallback(
    (tone: Tone, message: string, action?: NoticeAction, keep = tone === 'error') => {
      const id = ++nextId.current;
      // Keep the stack short; the same message twice shows once.
      setToasts((all) => [...all.filter((toast) => toast.message !== message).slice(-3), { id, tone, message, action }]);
      if (!keep) setTimeout(() => dismiss(id), 4_000);
      return id;
    },
    [dismiss],
  );
  const toaster = useMemo<Toaster>(
    () => ({
      error(message, retry) {
        const id: number = push(
          'error',
          message,
          retry && {
            label: 'Retry',
            run: () => {
              dismiss(id);
              retry();
            },
          },
        );
      },
      info: (message, options) => void push('info', message, undefined, options?.keep),
      success: (message) => void push('success', message),
    }),
    [push, dismiss],
  );
  return (
    <ToastContext.Provider value={toaster}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((toast) => (
          <Notice key={toast.id} tone={toast.tone} message={toast.message} action={toast.action} onDismiss={() => dismiss(toast.id)} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): Toaster {
  const toaster = useContext(ToastContext);
  if (!toaster) throw new Error('useToast needs a ToastProvider');
  return toaster;
}
