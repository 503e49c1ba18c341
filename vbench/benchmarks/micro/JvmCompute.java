/**
 * vbench's jvmcpu micro-benchmark (vbench/benchmarks/micro/jvmcpu.py says what it is for): one
 * thread of JIT-compiled Java doing what a TeraSort task's CPU does between its reads and writes.
 * One operation: generate `records` records of 100 bytes (a 10-byte key, TeraGen's shape) from a
 * 64-bit LCG, sort an index of them by key as Hadoop's map-side sort does (a quicksort over the
 * index comparing keys as unsigned bytes, WritableComparator.compareBytes' order), and checksum the
 * records in sorted order with a table-driven CRC-32 (Hadoop's PureJavaCrc32's kind). Buffers are
 * allocated once, so an operation allocates nothing and no collector runs while it is timed.
 * Arguments: seconds per repeat, repeats, warm-up seconds, records, operations per repeat (0: as
 * many as `seconds` allow; more: exactly that many, `seconds` unused). A warm-up of 0 seconds makes
 * no operation, so the first repeat is a cold JVM's. Prints one "jvmcpu warmup" line, one "jvmcpu
 * repeat=" line per repeat and a "jvmcpu check=" line (the checksums' sum, so the compiler cannot
 * drop the work).
 */
public final class JvmCompute {
    private static final int RECORD = 100;
    private static final int KEY = 10;
    private static final int[] CRC_TABLE = crcTable();

    private final byte[] data;
    private final int[] index;
    private final int records;
    private long seed = 0x5DEECE66DL;
    private long check;

    JvmCompute(int records) {
        this.records = records;
        this.data = new byte[records * RECORD];
        this.index = new int[records];
    }

    public static void main(String[] args) {
        double seconds = Double.parseDouble(args[0]);
        int repeats = Integer.parseInt(args[1]);
        double warmupSeconds = Double.parseDouble(args[2]);
        int records = Integer.parseInt(args[3]);
        long opsPerRepeat = Long.parseLong(args[4]);
        JvmCompute c = new JvmCompute(records);
        long[] warm = warmupSeconds > 0 ? c.runFor(warmupSeconds) : new long[] {0, 0};
        System.out.println("jvmcpu warmup ops=" + warm[0] + " ns=" + warm[1]);
        for (int r = 1; r <= repeats; r++) {
            long[] m = opsPerRepeat > 0 ? c.runOps(opsPerRepeat) : c.runFor(seconds);
            System.out.println("jvmcpu repeat=" + r + " ops=" + m[0] + " ns=" + m[1]);
        }
        System.out.println("jvmcpu check=" + Long.toHexString(c.check));
    }

    /** Operations one after another until `seconds` have passed (at least one): {ops, ns}. */
    long[] runFor(double seconds) {
        long limit = (long) (seconds * 1e9);
        long start = System.nanoTime();
        long ops = 0;
        long elapsed;
        do {
            check += operation();
            ops++;
            elapsed = System.nanoTime() - start;
        } while (elapsed < limit);
        return new long[] {ops, elapsed};
    }

    /** Exactly `ops` operations: {ops, ns}. */
    long[] runOps(long ops) {
        long start = System.nanoTime();
        for (long i = 0; i < ops; i++) {
            check += operation();
        }
        return new long[] {ops, System.nanoTime() - start};
    }

    int operation() {
        generate();
        sort(0, records - 1);
        int crc = 0xFFFFFFFF;
        for (int i = 0; i < records; i++) {
            crc = crc32(crc, index[i] * RECORD, RECORD);
        }
        return ~crc;
    }

    private void generate() {
        long x = seed;
        for (int i = 0; i < records; i++) {
            int base = i * RECORD;
            for (int j = 0; j < RECORD; j += 4) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                int v = (int) (x >>> 32);
                data[base + j] = (byte) v;
                data[base + j + 1] = (byte) (v >>> 8);
                data[base + j + 2] = (byte) (v >>> 16);
                data[base + j + 3] = (byte) (v >>> 24);
            }
            index[i] = i;
        }
        seed = x;
    }

    /** Keys of records a and b compared as unsigned bytes. */
    private int compare(int a, int b) {
        int pa = a * RECORD;
        int pb = b * RECORD;
        for (int k = 0; k < KEY; k++) {
            int d = (data[pa + k] & 0xFF) - (data[pb + k] & 0xFF);
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private void swap(int i, int j) {
        int t = index[i];
        index[i] = index[j];
        index[j] = t;
    }

    /** Median-of-three quicksort of index[lo..hi], insertion sort below 13 (Hadoop's QuickSort's shape). */
    private void sort(int lo, int hi) {
        while (hi - lo >= 13) {
            int mid = (lo + hi) >>> 1;
            if (compare(index[mid], index[lo]) < 0) swap(mid, lo);
            if (compare(index[hi], index[lo]) < 0) swap(hi, lo);
            if (compare(index[hi], index[mid]) < 0) swap(hi, mid);
            int pivot = index[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (compare(index[i], pivot) < 0) i++;
                while (compare(index[j], pivot) > 0) j--;
                if (i <= j) {
                    swap(i, j);
                    i++;
                    j--;
                }
            }
            // The smaller side recursively, the larger in this loop: the stack stays logarithmic.
            if (j - lo < hi - i) {
                sort(lo, j);
                lo = i;
            } else {
                sort(i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            for (int j = i; j > lo && compare(index[j], index[j - 1]) < 0; j--) {
                swap(j, j - 1);
            }
        }
    }

    private int crc32(int crc, int off, int len) {
        for (int i = off; i < off + len; i++) {
            crc = (crc >>> 8) ^ CRC_TABLE[(crc ^ data[i]) & 0xFF];
        }
        return crc;
    }

    private static int[] crcTable() {
        int[] t = new int[256];
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
            }
            t[n] = c;
        }
        return t;
    }
}
