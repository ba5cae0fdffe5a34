// A small reader of text/event-stream bodies (the WHATWG server-sent events format) for streamed
// chat replies: fetch + ReadableStream rather than EventSource, because the request is a POST with
// a bearer token and must be abortable. Handles CRLF/LF/CR line ends, multi-line `data:`, comments
// (`: keep-alive`) and events split across network chunks.
export async function readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: string, data: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) onEvent(event || 'message', data.join('\n'));
    event = '';
    data = [];
  };
  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    // A trailing CR may be the first half of a CRLF: keep it until the next chunk.
    const lines = buffer.split(/\r\n|\n|\r(?!$)/);
    buffer = lines.pop() ?? '';
    for (const text of lines) line(text);
  }
  buffer += decoder.decode();
  if (buffer) line(buffer.replace(/\r$/, ''));
  dispatch();
}
