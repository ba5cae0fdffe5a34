// Types for the parts of the untyped `stopword` package we use.
declare module 'stopword' {
  export const eng: string[];
}
