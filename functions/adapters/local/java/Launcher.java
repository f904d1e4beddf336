import java.io.InputStream;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;
import software.amazon.dynamodb.services.local.server.LocalDynamoDBRequestHandler;
import software.amazon.dynamodb.services.local.server.LocalDynamoDBServerHandler;

/**
 * DynamoDB Local for Carhook's local runtime, run as a single source file by Java 11+
 * (`java -cp "DynamoDBLocal.jar:DynamoDBLocal_lib/*" Launcher.java PORT [DBPATH]`).
 *
 * The stock main listens on every interface and has no bind-address option; this one builds the
 * same request handler and Jetty context but gives Jetty a single connector on 127.0.0.1, so
 * nothing off this machine can reach the tables.
 *
 * It also dies with its parent whatever way the parent dies: standard input is a pipe from the
 * Node process, and the kernel closes that pipe when the process exits, SIGKILL included. A
 * thread blocks reading it and exits the JVM at end of file.
 *
 * Arguments: PORT (1-65535), then DBPATH (a directory, persisted with -sharedDb semantics) or
 * nothing for in memory. Prints "READY <port>" on standard output once it accepts connections.
 */
public class Launcher {
  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: Launcher PORT [DBPATH]");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    boolean inMemory = args.length == 1;
    String dbPath = inMemory ? null : args[1];

    Thread watch = new Thread(() -> {
      InputStream in = System.in;
      byte[] buffer = new byte[64];
      try {
        while (in.read(buffer) >= 0) {
          // Nothing is ever sent: any bytes are ignored, only end of file matters.
        }
      } catch (Exception ignored) {
        // A broken pipe means the parent is gone too.
      }
      Runtime.getRuntime().halt(0);
    }, "parent-watch");
    watch.setDaemon(true);
    watch.start();

    // (port unused by the handler, in memory, db path, shared db, delay transient statuses)
    LocalDynamoDBRequestHandler requests = new LocalDynamoDBRequestHandler(0, inMemory, dbPath, true, false);
    // CORS: an empty allow-list, so no web page open on this machine can read the tables.
    LocalDynamoDBServerHandler handler = new LocalDynamoDBServerHandler(requests, "");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(new DynamoDBProxyServer(port, handler).setUpHandler(handler));
    server.start();
    System.out.println("READY " + connector.getLocalPort());
    System.out.flush();
    server.join();
  }
}
