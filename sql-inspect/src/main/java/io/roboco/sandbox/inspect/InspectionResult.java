package io.roboco.sandbox.inspect;

/** What every successful inspection tool returns: trusted figures, and the database's content in an {@link Untrusted} envelope. */
public interface InspectionResult {

    /** The content read from the database, marked as data. */
    Untrusted<?> data();

    /** One short sentence of trusted figures for a tool result's text ("12 rows; 1 column redacted"). */
    String summary();
}
