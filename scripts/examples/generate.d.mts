// Types for generate.mjs (importing it does not run the generator).
export declare const SYSTEM_PROMPT: string;
export declare function userPrompt(statement: string): string;
/** Σ over messages of ceil((content characters + JSON(tool_calls) characters) / 4). */
export declare function tokenEstimate(messages: Array<{ content: string | null; tool_calls?: unknown[] }>): number;
