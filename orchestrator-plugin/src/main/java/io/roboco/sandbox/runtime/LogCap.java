package io.roboco.sandbox.runtime;

/**
 * How much a sandbox container's stdout/stderr may occupy on the container host: at most {@code maxFiles} files of
 * {@code maxFileBytes} each, the oldest dropped first. Whatever an engine (or an agent through it) writes to its log,
 * the host keeps no more than {@link #maxTotalBytes()} of it per container.
 *
 * @param maxFileBytes one log file's size before it is rotated
 * @param maxFiles     log files kept, the current one included (1-100)
 */
public record LogCap(long maxFileBytes, int maxFiles) {
    /** 10 MB per file. */
    public static final long DEFAULT_FILE_BYTES = 10L * 1024 * 1024;
    /** Two files: at most 20 MB of log per container. */
    public static final int DEFAULT_FILES = 2;
    /** Below this a rotated log would keep too little to diagnose a failed start. */
    public static final long MIN_FILE_BYTES = 64L * 1024;

    public LogCap {
        if (maxFileBytes < MIN_FILE_BYTES) {
            throw new IllegalArgumentException("a container log file must be allowed at least " + MIN_FILE_BYTES / 1024
                    + " KB, not " + maxFileBytes + " bytes");
        }
        if (maxFiles < 1 || maxFiles > 100) {
            throw new IllegalArgumentException("a container log keeps 1-100 files, not " + maxFiles);
        }
    }

    public static LogCap defaults() {
        return new LogCap(DEFAULT_FILE_BYTES, DEFAULT_FILES);
    }

    /** The most log bytes one container may occupy on the host. */
    public long maxTotalBytes() {
        return maxFileBytes * maxFiles;
    }
}
