// Saves a Blob the app fetched itself (with the bearer token, so a plain link cannot do it) as a
// download under `fileName`.

export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The click starts the download synchronously; the URL is released once it has been read.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
