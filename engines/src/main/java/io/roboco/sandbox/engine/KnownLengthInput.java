package io.roboco.sandbox.engine;

import java.io.FilterInputStream;
import java.io.InputStream;

/**
 * An exec's input whose length is known before it is read (a file of the template store), so a runtime that must
 * bound a command's input need not spool it first to learn its length. The stream must hold exactly {@link #length}
 * bytes.
 */
public final class KnownLengthInput extends FilterInputStream {
    private final long length;

    public KnownLengthInput(InputStream in, long length) {
        super(in);
        if (length < 0) {
            throw new IllegalArgumentException("an input's length cannot be negative, was " + length);
        }
        this.length = length;
    }

    public long length() {
        return length;
    }
}
