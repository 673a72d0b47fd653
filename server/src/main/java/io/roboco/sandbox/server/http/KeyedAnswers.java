package io.roboco.sandbox.server.http;

import io.javalin.http.Context;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.request.IdempotencyKey;
import java.util.Map;

/**
 * The HTTP face of idempotency keys ({@link IdempotentCalls}): a create or a checkpoint that carries an
 * {@code Idempotency-Key} header is run once per key of its caller (the admin, or a client token's owner); a retry with
 * the same key and body is answered the first answer, with {@code Idempotent-Replayed: true}, and the same key with
 * another body is a 409 {@code idempotency_conflict}. Only a success is kept (a sandbox made, a checkpoint taken): a
 * refusal or a failure can be retried under the same key.
 */
final class KeyedAnswers {
    static final String HEADER = "Idempotency-Key";
    static final String REPLAYED = "Idempotent-Replayed";

    /** An answer as the route would write it. */
    record Answer(int status, Map<String, Object> body) {}

    private final IdempotentCalls<Answer> calls;

    KeyedAnswers(IdempotentCalls<Answer> calls) {
        this.calls = calls;
    }

    /** Writes {@code call}'s answer; with an {@code Idempotency-Key}, once per key (see the class comment). */
    void answer(Context ctx, String operation, Map<String, Object> body, IdempotentCalls.Call<Answer> call)
            throws InterruptedException {
        String raw = ctx.header(HEADER);
        if (raw == null) {
            write(ctx, call.run());
            return;
        }
        IdempotencyKey key = IdempotencyKey.parse(HEADER, raw);
        String client = ClientScope.owner(ctx);
        String caller = client == null ? "admin" : "client:" + client;
        IdempotentCalls.Outcome<Answer> outcome = calls.run(caller, key, operation, body, KeyedAnswers::success, call);
        if (outcome instanceof IdempotentCalls.Outcome.Answered<Answer> answered) {
            if (answered.replayed()) {
                ctx.header(REPLAYED, "true");
            }
            write(ctx, answered.answer());
        } else if (outcome instanceof IdempotentCalls.Outcome.Conflict<Answer> conflict) {
            Json.write(ctx, 409, Json.error("idempotency_conflict", conflict.reason()));
        } else {
            IdempotentCalls.Outcome.StillRunning<Answer> running =
                    (IdempotentCalls.Outcome.StillRunning<Answer>) outcome;
            ctx.header("Retry-After", "5");
            Json.write(ctx, 409, Json.error("idempotency_in_progress", running.reason()));
        }
    }

    /** A success, the one kind of answer a key keeps. */
    private static boolean success(Answer answer) {
        return answer.status() == 200 && !Boolean.FALSE.equals(answer.body().get("ok"));
    }

    private static void write(Context ctx, Answer answer) {
        Json.write(ctx, answer.status(), answer.body());
    }
}
