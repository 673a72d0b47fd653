package io.roboco.sandbox.server.http;

import io.javalin.http.Context;
import io.roboco.sandbox.idempotency.IdempotentCalls;
import io.roboco.sandbox.plugin.Sandboxes;
import io.roboco.sandbox.progress.ProgressTicker;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.request.IdempotencyKey;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the slow routes that make something answer (creates, checkpoints, rewinds): once per idempotency key, and as a
 * stream of progress when the caller asks.
 *
 * <p><b>Idempotency keys</b> ({@link IdempotentCalls}): a request carrying an {@code Idempotency-Key} header is run once
 * per key of its caller (the admin, or a client token's owner); a retry with the same key and body is answered the
 * first answer, with {@code Idempotent-Replayed: true}, a retry while the first still runs waits for it, and the same
 * key with another body is a 409 {@code idempotency_conflict}. Only a success is kept (a sandbox made, a checkpoint
 * taken): a refusal or a failure can be retried under the same key.
 *
 * <p><b>Progress</b>: with {@code Accept: application/x-ndjson} the answer is 200 and streamed, one JSON object a line:
 * every second while the call runs past its first second a {@code {"progress":n,"message":"…"}} line (for a template
 * restore or save, how many MB of the dump have gone), then one last {@code {"status":…,"replayed":…,"body":{…}}}: the
 * status and body the route answers without streaming.
 */
final class KeyedAnswers {
    private static final Logger log = LoggerFactory.getLogger(KeyedAnswers.class);
    static final String HEADER = "Idempotency-Key";
    static final String REPLAYED = "Idempotent-Replayed";
    static final String NDJSON = "application/x-ndjson";

    /** An answer as the route would write it. */
    record Answer(int status, Map<String, Object> body) {}

    private record Given(Answer answer, boolean replayed) {}

    private final IdempotentCalls<Answer> calls;
    private final ProgressTicker ticker;
    private final Function<String, Optional<String>> detail;

    /** @param detail what a project's template traffic is now (a restore's MB read), for progress lines */
    KeyedAnswers(IdempotentCalls<Answer> calls, ProgressTicker ticker, Function<String, Optional<String>> detail) {
        this.calls = calls;
        this.ticker = ticker;
        this.detail = detail;
    }

    /**
     * Writes {@code call}'s answer (see the class comment).
     *
     * @param project the project the call works in (the detail of its progress), or "" when unknown
     */
    void answer(
            Context ctx, String operation, String project, Map<String, Object> body, IdempotentCalls.Call<Answer> call)
            throws InterruptedException {
        String accept = ctx.header("Accept");
        if (accept != null && accept.contains(NDJSON)) {
            streamed(ctx, operation, project, body, call);
            return;
        }
        Given given = keyed(ctx, operation, body, call);
        if (given.replayed()) {
            ctx.header(REPLAYED, "true");
        }
        Json.write(ctx, given.answer().status(), given.answer().body());
    }

    private Given keyed(Context ctx, String operation, Map<String, Object> body, IdempotentCalls.Call<Answer> call)
            throws InterruptedException {
        String raw = ctx.header(HEADER);
        if (raw == null) {
            return new Given(call.run(), false);
        }
        IdempotencyKey key = IdempotencyKey.parse(HEADER, raw);
        String client = ClientScope.owner(ctx);
        String caller = client == null ? "admin" : "client:" + client;
        IdempotentCalls.Outcome<Answer> outcome = calls.run(caller, key, operation, body, KeyedAnswers::success, call);
        if (outcome instanceof IdempotentCalls.Outcome.Answered<Answer> answered) {
            return new Given(answered.answer(), answered.replayed());
        }
        if (outcome instanceof IdempotentCalls.Outcome.Conflict<Answer> conflict) {
            return new Given(new Answer(409, Json.error("idempotency_conflict", conflict.reason())), false);
        }
        IdempotentCalls.Outcome.StillRunning<Answer> running = (IdempotentCalls.Outcome.StillRunning<Answer>) outcome;
        return new Given(new Answer(409, Json.error("idempotency_in_progress", running.reason())), false);
    }

    private void streamed(
            Context ctx, String operation, String project, Map<String, Object> body, IdempotentCalls.Call<Answer> call)
            throws InterruptedException {
        HttpServletResponse res = ctx.res();
        res.setStatus(200);
        res.setContentType(NDJSON);
        res.setHeader("Cache-Control", "no-store");
        Object lock = new Object();
        OutputStream out;
        try {
            out = res.getOutputStream();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the response cannot be written: " + e.getClass().getSimpleName());
        }
        Given given;
        try (ProgressTicker.Ticking ticking = ticker.start(operation, () -> detail.apply(project), tick -> {
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("progress", tick.step());
            line.put("message", tick.message());
            synchronized (lock) {
                line(out, line);
                res.flushBuffer();
            }
        })) {
            given = streamedCall(ctx, operation, body, call);
        }
        Map<String, Object> last = new LinkedHashMap<>();
        last.put("status", given.answer().status());
        last.put("replayed", given.replayed());
        last.put("body", given.answer().body());
        synchronized (lock) {
            try {
                line(out, last);
                res.flushBuffer();
            } catch (IOException e) {
                log.debug(
                        "the streamed answer of {} was not delivered: {}",
                        operation,
                        e.getClass().getSimpleName());
            }
        }
    }

    /** The call, with the refusals the API answers as errors turned into answers (the status line is already sent). */
    private Given streamedCall(
            Context ctx, String operation, Map<String, Object> body, IdempotentCalls.Call<Answer> call)
            throws InterruptedException {
        try {
            return keyed(ctx, operation, body, call);
        } catch (BadRequest e) {
            return new Given(new Answer(400, Json.error("bad_request", e.getMessage())), false);
        } catch (ApiError e) {
            return new Given(new Answer(e.status(), Json.error(e.code(), e.getMessage())), false);
        } catch (Sandboxes.NotFound e) {
            return new Given(new Answer(404, Json.error("not_found", e.getMessage())), false);
        } catch (Sandboxes.Conflict e) {
            return new Given(new Answer(409, Json.error("conflict", e.getMessage())), false);
        } catch (RuntimeException e) {
            log.error("unhandled {} on streamed {}", e.getClass().getName(), operation);
            return new Given(
                    new Answer(500, Json.error("internal", "internal error; the server log has the exception class")),
                    false);
        }
    }

    private static void line(OutputStream out, Map<String, Object> value) throws IOException {
        out.write((Json.string(value) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** A success, the one kind of answer a key keeps. */
    private static boolean success(Answer answer) {
        return answer.status() == 200 && !Boolean.FALSE.equals(answer.body().get("ok"));
    }
}
