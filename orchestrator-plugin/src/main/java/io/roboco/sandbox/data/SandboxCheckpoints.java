package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.provision.ServiceInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One checkpoint for the whole sandbox: every service whose engine offers {@link Engine#checkpoints} is checkpointed
 * under the same name, and rewound as one. A rewind first {@linkplain Checkpoints#prepareRewind prepares} every
 * service (the copies, while the agent's data is untouched), then switches each in turn, the ones that can be undone
 * first; when a switch fails, the services already switched are undone, so the agent finds none rewound, and when an
 * undo fails too the answer names which services hold the checkpoint's data and which their own.
 */
final class SandboxCheckpoints {
    /** One of the sandbox's services whose engine offers checkpoints, with the target its engine works on. */
    record Member(String service, ServiceInstance instance, Checkpoints checkpoints, ProbeTarget target) {}

    private static final int MAX_REASON = 1_000;

    private final List<Member> members;

    SandboxCheckpoints(List<Member> members) {
        this.members = members;
    }

    /** The members of {@code services} in the registry's order; empty when no engine of theirs offers checkpoints. */
    static SandboxCheckpoints of(
            EngineRegistry registry,
            Map<String, ServiceInstance> services,
            Function<ServiceInstance, ProbeTarget> targets) {
        List<Member> members = new ArrayList<>();
        for (Engine engine : registry.offering(Engine::checkpoints)) {
            ServiceInstance instance = services.get(engine.name());
            if (instance != null) {
                members.add(new Member(
                        engine.name(), instance, engine.checkpoints().orElseThrow(), targets.apply(instance)));
            }
        }
        return new SandboxCheckpoints(members);
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    List<Member> members() {
        return members;
    }

    /**
     * Checkpoint {@code name} of every service. When one fails, the name is removed from every service (also from the
     * ones that had one of that name before: a checkpoint is the whole sandbox's or none), and the answer says so.
     */
    DataOutcome checkpoint(String name) {
        List<Map<String, Object>> done = new ArrayList<>();
        for (Member m : members) {
            try {
                done.add(entry(m.service(), m.checkpoints().checkpoint(m.target(), name), "checkpoint_bytes"));
            } catch (Exception e) {
                List<String> removed = new ArrayList<>();
                List<String> kept = new ArrayList<>();
                for (Member other : members) {
                    try {
                        other.checkpoints().delete(other.target(), name);
                        removed.add(other.service());
                    } catch (Exception | LinkageError ignored) {
                        kept.add(other.service());
                    }
                }
                return new DataOutcome.Failed(
                        "checkpoint_sandbox failed on " + m.service() + ": " + reason(e) + "; checkpoint '" + name
                                + "' was removed from " + list(removed)
                                + (kept.isEmpty()
                                        ? " (no service keeps one of that name)"
                                        : "; it could not be removed from " + list(kept)
                                                + ", so do not rewind to it: take it again"),
                        true);
            }
        }
        return new DataOutcome.Done(answer(name, done, "checkpoint_bytes"));
    }

    /** Rewind every service to checkpoint {@code name}: prepare all, then switch all, undoing on a failed switch. */
    DataOutcome rewind(String name) {
        List<Prepared> prepared = new ArrayList<>();
        try {
            for (Member m : members) {
                try {
                    prepared.add(new Prepared(m, m.checkpoints().prepareRewind(m.target(), name)));
                } catch (UnknownNameException e) {
                    return new DataOutcome.Refused(redact(e.getMessage()));
                } catch (Exception e) {
                    return new DataOutcome.Failed(
                            "rewind_sandbox failed preparing " + m.service() + ": " + reason(e)
                                    + "; nothing was rewound, try again",
                            true);
                }
            }
            // the switches that can be undone go first; at most the last one switched cannot be taken back
            prepared.sort(Comparator.comparing((Prepared p) -> !p.rewind().undoable()));
            List<Prepared> switched = new ArrayList<>();
            List<Map<String, Object>> done = new ArrayList<>();
            for (Prepared p : prepared) {
                try {
                    done.add(entry(p.member().service(), p.rewind().commit(), "database_bytes"));
                    switched.add(p);
                } catch (UnknownNameException e) {
                    // an engine that prepares nothing finds out at its switch
                    DataOutcome undone = undo(name, p.member(), e, switched);
                    return undone instanceof DataOutcome.Failed f && f.reason().endsWith("nothing was rewound")
                            ? new DataOutcome.Refused(redact(e.getMessage()))
                            : undone;
                } catch (Exception e) {
                    return undo(name, p.member(), e, switched);
                }
            }
            for (Prepared p : switched) {
                try {
                    p.rewind().finish();
                } catch (Exception ignored) {
                    // what the switch set aside stays in the sandbox's container, out of the agent's reach
                }
            }
            return new DataOutcome.Done(answer(name, done, "database_bytes"));
        } finally {
            prepared.forEach(p -> p.rewind().close());
        }
    }

    private record Prepared(Member member, Checkpoints.PreparedRewind rewind) {}

    /** A switch failed on {@code failed}: the services already switched are undone, in reverse. */
    private DataOutcome undo(String name, Member failed, Exception cause, List<Prepared> switched) {
        List<String> back = new ArrayList<>();
        List<String> stuck = new ArrayList<>();
        StringBuilder undoFailures = new StringBuilder();
        for (int i = switched.size() - 1; i >= 0; i--) {
            Prepared p = switched.get(i);
            try {
                p.rewind().undo();
                back.add(p.member().service());
            } catch (Exception e) {
                stuck.add(p.member().service());
                undoFailures
                        .append("; undoing ")
                        .append(p.member().service())
                        .append(" failed: ")
                        .append(reason(e));
            }
        }
        String head = "rewind_sandbox failed switching " + failed.service() + " to checkpoint '" + name + "': "
                + reason(cause);
        if (stuck.isEmpty()) {
            return new DataOutcome.Failed(
                    head + (back.isEmpty() ? "" : "; " + list(back) + " switched back") + "; nothing was rewound",
                    true);
        }
        List<String> notRewound = new ArrayList<>();
        for (Member m : members) {
            if (!stuck.contains(m.service())) {
                notRewound.add(m.service());
            }
        }
        return new DataOutcome.Failed(
                head + undoFailures + "; rewound to '" + name + "': " + list(stuck) + "; as before the rewind: "
                        + list(notRewound) + "; rewind again to put every service on the checkpoint",
                true);
    }

    private static Map<String, Object> entry(String service, Checkpoints.Result r, String bytesKey) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("service", service);
        e.put(bytesKey, r.sizeBytes());
        e.put("sessions_closed", r.sessionsClosed());
        e.put("millis", r.millis());
        return e;
    }

    private static Map<String, Object> answer(String name, List<Map<String, Object>> done, String bytesKey) {
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("name", name);
        evidence.put(
                bytesKey, done.stream().mapToLong(e -> (Long) e.get(bytesKey)).sum());
        evidence.put(
                "sessions_closed",
                done.stream().mapToInt(e -> (Integer) e.get("sessions_closed")).sum());
        evidence.put(
                "millis", done.stream().mapToLong(e -> (Long) e.get("millis")).sum());
        evidence.put("services", done);
        return evidence;
    }

    /** An exception's message for an answer: the sandbox's passwords taken out, cut to a bound. */
    private String reason(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return redact(message);
    }

    private String redact(String message) {
        String out = String.valueOf(message);
        for (Member m : members) {
            out = Offered.redact(out, m.instance());
        }
        return out.length() > MAX_REASON ? out.substring(0, MAX_REASON) + "…" : out;
    }

    private static String list(List<String> services) {
        return services.isEmpty() ? "no service" : String.join(", ", services);
    }
}
