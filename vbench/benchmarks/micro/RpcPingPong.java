import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * vbench's rpc micro-benchmark (vbench/benchmarks/micro/rpc.py says what it is for): one client and
 * one server in this JVM, over a loopback TCP connection, each call handed between threads the way
 * Hadoop's IPC hands it. Client: the caller gives the request to a sender thread and waits for it
 * to be written, then waits on a monitor until the receiver thread has read the answer. Server: a
 * reader thread selects and reads the request and queues it; a handler thread takes it and writes
 * the answer. Arguments: seconds per repeat, repeats, warm-up seconds, payload bytes. Prints one
 * "rpc warmup" line and one "rpc repeat=" line per repeat; any thread's failure exits 3.
 */
public final class RpcPingPong {
    private static final int HEADER = 4;

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(args[0]);
        int repeats = Integer.parseInt(args[1]);
        double warmupSeconds = Double.parseDouble(args[2]);
        int payload = Integer.parseInt(args[3]);
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.err.println("vbench: rpc: thread " + t.getName() + " failed: " + e);
            System.exit(3);
        });

        ServerSocketChannel listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        SocketChannel client = SocketChannel.open(listener.getLocalAddress());
        SocketChannel server = listener.accept();
        listener.close();
        // As Hadoop's ipc.client.tcpnodelay and ipc.server.tcpnodelay (both true by default).
        client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        server.setOption(StandardSocketOptions.TCP_NODELAY, true);

        BlockingQueue<byte[]> calls = new LinkedBlockingQueue<>();
        start("reader", () -> read(server, calls, payload));
        start("handler", () -> handle(server, calls));
        Client c = new Client(client, payload);
        start("receiver", c::receive);

        long[] warm = c.runFor(warmupSeconds);
        System.out.println("rpc warmup calls=" + warm[0] + " ns=" + warm[1]);
        for (int r = 1; r <= repeats; r++) {
            long[] m = c.runFor(seconds);
            System.out.println("rpc repeat=" + r + " calls=" + m[0] + " ns=" + m[1]);
        }
        System.out.flush();
        System.exit(0); // the other threads are blocked in I/O for good
    }

    interface Body {
        void run() throws Exception;
    }

    static void start(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    /** The server's reader: frames (a 4-byte length, then the bytes) read as they come, queued. */
    static void read(SocketChannel ch, BlockingQueue<byte[]> calls, int payload) throws Exception {
        try (Selector selector = Selector.open()) {
            ch.configureBlocking(false);
            ch.register(selector, SelectionKey.OP_READ);
            ByteBuffer in = ByteBuffer.allocate(Math.max(1 << 16, 4 * (HEADER + payload)));
            while (true) {
                selector.select();
                selector.selectedKeys().clear();
                if (ch.read(in) < 0) {
                    throw new EOFException("the client closed the connection");
                }
                in.flip();
                while (in.remaining() >= HEADER && in.remaining() >= HEADER + in.getInt(in.position())) {
                    byte[] call = new byte[in.getInt()];
                    in.get(call);
                    calls.put(call);
                }
                in.compact();
            }
        }
    }

    /** The server's handler: each queued call answered with as many bytes as it brought. */
    static void handle(SocketChannel ch, BlockingQueue<byte[]> calls) throws Exception {
        while (true) {
            byte[] call = calls.take();
            ByteBuffer out = ByteBuffer.allocate(HEADER + call.length);
            out.putInt(call.length).put(call).flip();
            writeAll(ch, out);
        }
    }

    static void writeAll(SocketChannel ch, ByteBuffer out) throws IOException {
        synchronized (ch) {
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }
    }

    static void fill(SocketChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                throw new EOFException("the server closed the connection");
            }
        }
    }

    static final class Client {
        private final SocketChannel ch;
        private final byte[] payload;
        private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "sender");
            t.setDaemon(true);
            return t;
        });
        private final Object lock = new Object();
        private long answered; // guarded by lock
        private long sent; // the caller's own

        Client(SocketChannel ch, int payload) {
            this.ch = ch;
            this.payload = new byte[payload];
        }

        /** The client's receiver: each answer read whole, then the waiting caller woken. */
        void receive() throws Exception {
            ByteBuffer head = ByteBuffer.allocate(HEADER);
            while (true) {
                head.clear();
                fill(ch, head);
                head.flip();
                int length = head.getInt();
                if (length != payload.length) {
                    throw new IOException("an answer of " + length + " bytes, not " + payload.length);
                }
                fill(ch, ByteBuffer.allocate(length));
                synchronized (lock) {
                    answered++;
                    lock.notifyAll();
                }
            }
        }

        void call() throws Exception {
            ByteBuffer out = ByteBuffer.allocate(HEADER + payload.length);
            out.putInt(payload.length).put(payload).flip();
            sender.submit(() -> {
                writeAll(ch, out);
                return null;
            }).get();
            long want = ++sent;
            synchronized (lock) {
                while (answered < want) {
                    lock.wait();
                }
            }
        }

        /** Calls one after another until `seconds` have passed: {calls, nanoseconds}. */
        long[] runFor(double seconds) throws Exception {
            long limit = (long) (seconds * 1e9);
            long start = System.nanoTime();
            long n = 0;
            long now;
            do {
                call();
                n++;
                now = System.nanoTime();
            } while (now - start < limit);
            return new long[] {n, now - start};
        }
    }
}
