import { type ServerReply, startOpenAITestServer } from "../../test/support/openai-test-server.ts";
import { ChatModelError } from "./chat-model-error.ts";
import { type ContractReply, chatModelContract } from "./contract.test-suite.ts";
import { createOpenAIChatModel } from "./openai-chat-model.ts";
import { ScriptedChatModel, type ScriptedReply } from "./scripted-model.ts";

/** Every ChatModel of gagar on the same cases: the test double and the OpenAI client against a real HTTP server. */
chatModelContract({
  name: "scripted",
  async start(reply) {
    const scripted: ScriptedReply =
      "fault" in reply
        ? { error: new ChatModelError(`scripted ${reply.fault} fault`, reply.fault) }
        : "hang" in reply
          ? { hang: true }
          : reply;
    return { model: new ScriptedChatModel(() => scripted), close: async () => {} };
  },
});

chatModelContract({
  name: "openai",
  async start(reply: ContractReply) {
    const wire: ServerReply =
      "fault" in reply
        ? { status: reply.fault === "client" ? 400 : 500 }
        : "hang" in reply
          ? { hang: true }
          : {
              content: reply.content,
              ...(reply.toolCalls && { toolCalls: reply.toolCalls }),
              ...(reply.usage && {
                usage: {
                  prompt_tokens: reply.usage.promptTokens,
                  completion_tokens: reply.usage.completionTokens,
                },
              }),
            };
    const server = await startOpenAITestServer(() => wire);
    const model = createOpenAIChatModel({
      baseURL: server.baseURL,
      model: "contract",
      retry: { retries: 2, initialDelayMs: 1, maxDelayMs: 5 },
    });
    return { model, close: () => server.close() };
  },
});
