// Token counts with a real tokenizer (gpt-tokenizer, o200k_base). Its tables are megabytes of
// JavaScript, most of a second of CPU for a process to load, so the first reply that counts loads
// them rather than the start: a CLI run, or a process that never chats, does not pay for them.
export type CountTokens = (text: string) => number;

export async function tokenCounter(): Promise<CountTokens> {
  return (await import('gpt-tokenizer')).countTokens;
}
