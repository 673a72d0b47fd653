package io.roboco.sandbox.sql;

/** The text cannot be read as Postgres SQL (an unterminated quote or comment, a character Postgres rejects). */
public final class SqlSyntaxException extends Exception {
    private final int offset;

    public SqlSyntaxException(String message, int offset) {
        super(message + " at offset " + offset);
        this.offset = offset;
    }

    public int offset() {
        return offset;
    }
}
