package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.NameShape;

/**
 * Who a sandbox belongs to: an agent (its {@link AgentSlug}), or an operator-side owner, a CI job, written
 * {@value #JOB_PREFIX} and a name of a slug's shape ({@code job:ci-42}). No slug can take the job form, so an agent and
 * a CI job never share an owner.
 */
public record Owner(String value) {
    public static final String JOB_PREFIX = "job:";
    /** A CI job's owner: {@code job:} and a slug's shape. */
    public static final NameShape JOB =
            AgentSlug.SHAPE.prefixed("job owner", JOB_PREFIX, JOB_PREFIX + "<name> for a CI job");
    /** Either: what a JSON Schema or a filter accepts as an owner. */
    public static final NameShape SHAPE = AgentSlug.SHAPE.optionallyPrefixed(
            "owner", JOB_PREFIX, "an agent slug " + AgentSlug.SHAPE.regex() + ", or " + JOB.rule());

    /** @throws BadRequest naming both shapes, when {@code value} is neither */
    public Owner {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    public static Owner parse(String value) {
        return new Owner(value);
    }

    /** Whether {@code owner} is a CI job's ({@code job:<name>}) rather than an agent's. */
    public static boolean isJob(String owner) {
        return JOB.matches(owner);
    }

    public boolean isJob() {
        return isJob(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
