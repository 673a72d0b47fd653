package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.provision.ServiceInstance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code diff_data}: what changed in every service of the sandbox whose engine offers {@link Engine#dataDiffs} since one
 * checkpoint of the whole sandbox ({@link SandboxCheckpoints}), as one answer. Bounded: each engine lists at most
 * {@link DataDiffs.Limits#parts} parts with {@link DataDiffs.Limits#samples} records of each change cut to
 * {@link DataDiffs.Limits#valueChars}, and the samples of the whole answer stop at {@link #SAMPLE_BUDGET} characters
 * (the counts are always complete; {@code samples_cut} says where samples were left out).
 */
final class SandboxDataDiff {
    /** The characters of sample text one answer carries at most, over every service. */
    static final int SAMPLE_BUDGET = 48_000;

    private static final int MAX_REASON = 1_000;

    /** One service whose engine diffs, with the target its engine works on. */
    record Member(String service, ServiceInstance instance, DataDiffs diffs, ProbeTarget target) {}

    private final List<Member> members;
    private final DataDiffs.Limits limits;

    SandboxDataDiff(List<Member> members, DataDiffs.Limits limits) {
        this.members = members;
        this.limits = limits;
    }

    /** The members of {@code services} in the registry's order; empty when no engine of theirs diffs. */
    static SandboxDataDiff of(
            EngineRegistry registry,
            Map<String, ServiceInstance> services,
            Function<ServiceInstance, ProbeTarget> targets,
            DataDiffs.Limits limits) {
        List<Member> members = new ArrayList<>();
        for (Engine engine : registry.offering(Engine::dataDiffs)) {
            ServiceInstance instance = services.get(engine.name());
            if (instance != null) {
                members.add(
                        new Member(engine.name(), instance, engine.dataDiffs().orElseThrow(), targets.apply(instance)));
            }
        }
        return new SandboxDataDiff(members, limits);
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** Every member's diff against checkpoint {@code name}; refused when a service has no such checkpoint. */
    DataOutcome diff(String name) {
        List<Map<String, Object>> services = new ArrayList<>();
        int[] budget = {SAMPLE_BUDGET};
        boolean empty = true;
        boolean cut = false;
        for (Member m : members) {
            DataDiff diff;
            try {
                diff = m.diffs().diff(m.target(), name, limits);
            } catch (UnknownNameException e) {
                return new DataOutcome.Refused(
                        redact(e.getMessage()) + " (diff_data compares with a checkpoint_sandbox checkpoint)");
            } catch (Exception e) {
                String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                return new DataOutcome.Failed(
                        "diff_data failed on " + m.service() + ": " + redact(message)
                                + "; nothing was changed, try again",
                        true);
            }
            empty &= diff.isEmpty();
            Map<String, Object> service = new LinkedHashMap<>();
            service.put("service", m.service());
            service.put("empty", diff.isEmpty());
            List<Map<String, Object>> parts = new ArrayList<>();
            for (DataDiff.Part p : diff.changed()) {
                Map<String, Object> part = part(p, budget);
                cut |= Boolean.TRUE.equals(part.get("samples_cut"));
                parts.add(part);
            }
            service.put("changes", parts);
            service.put("unlisted_changes", diff.unlisted());
            service.put("unchanged", diff.unchanged());
            services.add(service);
        }
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("checkpoint", name);
        evidence.put("empty", empty);
        evidence.put("services", services);
        evidence.put(
                "limits",
                Map.of(
                        "samples",
                        limits.samples(),
                        "value_chars",
                        limits.valueChars(),
                        "parts",
                        limits.parts(),
                        "sample_chars",
                        SAMPLE_BUDGET));
        evidence.put("samples_cut", cut);
        evidence.put(
                "note",
                "changes since checkpoint '" + name + "', by primary key (Postgres), key (Redis) and _id (Mongo);"
                        + " counts are complete, samples are capped (limits); nothing was changed");
        return new DataOutcome.Done(evidence);
    }

    private Map<String, Object> part(DataDiff.Part p, int[] budget) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("kind", p.kind());
        part.put("name", p.name());
        part.put("status", p.status().name().toLowerCase(Locale.ROOT));
        part.put("matched_by", p.matchedBy());
        part.put("inserted", p.inserted());
        part.put("updated", p.updated());
        part.put("deleted", p.deleted());
        part.put("before", p.recordsBefore());
        part.put("after", p.recordsAfter());
        boolean[] cut = {false};
        Map<String, Object> samples = new LinkedHashMap<>();
        samples.put("inserted", samples(p.insertedSample(), budget, cut));
        samples.put("updated", samples(p.updatedSample(), budget, cut));
        samples.put("deleted", samples(p.deletedSample(), budget, cut));
        part.put("samples", samples);
        if (cut[0]) {
            part.put("samples_cut", true);
        }
        if (p.note() != null) {
            part.put("note", p.note());
        }
        return part;
    }

    private List<Map<String, Object>> samples(List<DataDiff.Sample> in, int[] budget, boolean[] cut) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (DataDiff.Sample s : in) {
            int size = length(s.key()) + length(s.before()) + length(s.after());
            if (size > budget[0]) {
                cut[0] = true;
                break;
            }
            budget[0] -= size;
            Map<String, Object> sample = new LinkedHashMap<>();
            if (s.key() != null) {
                sample.put("key", s.key());
            }
            if (s.before() != null) {
                sample.put("before", s.before());
            }
            if (s.after() != null) {
                sample.put("after", s.after());
            }
            out.add(sample);
        }
        return out;
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    private String redact(String message) {
        String out = String.valueOf(message);
        for (Member m : members) {
            out = Offered.redact(out, m.instance());
        }
        return out.length() > MAX_REASON ? out.substring(0, MAX_REASON) + "…" : out;
    }
}
