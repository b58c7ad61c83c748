/** A LIKE pattern matching `text` anywhere; `%`, `_` and backslashes typed by a person match literally. */
export const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
