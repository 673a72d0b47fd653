package io.roboco.sandbox.request;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.NameShape;

/**
 * A template's name within its project: a checkpoint name's shape, which is also a safe file name in the template
 * directory (no dot, no slash).
 */
public record TemplateName(String value) {
    public static final NameShape SHAPE = CheckpointName.SHAPE.as("template name");

    /** @throws BadRequest naming the shape, when {@code value} is not of it */
    public TemplateName {
        if (!SHAPE.matches(value)) {
            throw new BadRequest(SHAPE.malformed(value));
        }
    }

    /** The template name given as argument {@code field} ("'template' must be a template name (…); got '…'"). */
    public static TemplateName parse(String field, Object raw) {
        if (!(raw instanceof String name) || !SHAPE.matches(name)) {
            throw new BadRequest(SHAPE.mustBe(field, raw));
        }
        return new TemplateName(name);
    }

    public static boolean isValid(String value) {
        return SHAPE.matches(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
