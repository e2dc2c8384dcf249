export * from "./chat-model.ts";
export * from "./chat-model-error.ts";
export * from "./openai-chat-model.ts";
export * from "./retry.ts";
export * from "./scripted-model.ts";
