package dev.limiter.test;

/** A Redis that this library started and must stop: a local process or a container. */
interface Server {

    String host();

    int port();

    /** Ends the server abruptly; the port stays reserved for {@link #restart()}. */
    void kill();

    /** Freezes the server: it keeps its connections but answers nothing until {@link #resume()}. */
    void pause();

    /** Lets a paused server answer again. */
    void resume();

    /** Starts the server again on the same port with no data, and waits until it answers PING. */
    void restart();

    /** Stops the server for good and releases everything it used. Idempotent. */
    void stop();
}
