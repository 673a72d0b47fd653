package io.roboco.sandbox.template;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Passes at most {@code budget} bytes on; the first write past it fails ({@link Exceeded}) and writes nothing of
 * itself, so a dump larger than what is left for it never reaches the disk beyond its budget.
 */
final class CappedOutputStream extends FilterOutputStream {
    private final long budget;
    private long written;
    private volatile boolean exceeded;

    CappedOutputStream(OutputStream out, long budget) {
        super(out);
        this.budget = budget;
    }

    @Override
    public void write(int b) throws IOException {
        reserve(1);
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        reserve(len);
        out.write(b, off, len);
    }

    private void reserve(long n) throws Exceeded {
        if (exceeded || written + n > budget) {
            exceeded = true;
            throw new Exceeded(budget);
        }
        written += n;
    }

    /** True once a write went past the budget (whatever the writer did with the failure). */
    boolean exceeded() {
        return exceeded;
    }

    long written() {
        return written;
    }

    /** A write past the budget. */
    static final class Exceeded extends IOException {
        Exceeded(long budget) {
            super("the dump grew past the " + budget + " bytes left for it", null);
        }
    }
}
