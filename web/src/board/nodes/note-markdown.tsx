// A note's text drawn as Markdown (headings, emphasis, lists, task lists, links, code, tables)
// while it is not being edited, as JSON Canvas text nodes are. react-markdown builds React
// elements from the Markdown's syntax tree and never renders raw HTML (it is dropped), and its
// default URL filter removes `javascript:` and other unsafe addresses; remark-gfm adds GitHub's
// task lists, tables, strikethrough and bare links. Links open in a new tab without handing this
// page to the one they open.
//
// The drawing lies over the note's textarea, which stays in the page (its text transparent): the
// drawing takes no pointer events except on its links, so a click anywhere else lands in the
// textarea, which takes the focus and shows the raw text (board.css: `.bw-note__edit:focus-within`).
import { memo } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

const REMARK_PLUGINS = [remarkGfm];

const COMPONENTS: Components = {
  a: ({ node: _node, ...props }) => <a {...props} className="nodrag" target="_blank" rel="noopener noreferrer" />,
};

export const NoteMarkdown = memo(function NoteMarkdown({ text }: { text: string }) {
  return (
    <div className="bw-note__markdown" data-testid="note-markdown">
      <Markdown remarkPlugins={REMARK_PLUGINS} components={COMPONENTS}>
        {text}
      </Markdown>
    </div>
  );
});
