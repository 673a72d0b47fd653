package io.roboco.sandbox.mcp;

/**
 * What a tool does once the {@link Gate} has let a call through: arguments valid against the schema,
 * the caller entitled. A handler never re-checks policy and never writes audit. A refusal is a
 * {@link ToolResult#failed} value; a {@link io.roboco.sandbox.request.BadRequest} means malformed
 * arguments (a protocol error); any other exception is a fault the gate reports without its message.
 */
@FunctionalInterface
public interface ToolHandler {
    ToolResult handle(ToolCall call) throws InterruptedException;
}
