// Why serve could not listen, in words that name the setting to change. The port and host can be
// set three ways, and the message names all three, since serve cannot tell which one was used.

const PORT_SETTINGS = "serve --port, the config key server.port or $CHAINWATCH_SERVER__PORT";
const HOST_SETTINGS = "serve --host, the config key server.host or $CHAINWATCH_SERVER__HOST";

/** The startup error for a listen that failed with the system's error `code` (EADDRINUSE, …). */
export function listenFailure(host: string, port: number, code: string | undefined, message: string): string {
  switch (code) {
    case "EADDRINUSE":
      return `cannot listen on ${host}:${port}: port ${port} is in use (another chainwatch serve, or another program); choose another with ${PORT_SETTINGS}`;
    case "EACCES":
      return `cannot listen on ${host}:${port}: permission denied (a port below 1024 needs privileges); choose another with ${PORT_SETTINGS}`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${host}:${port}: ${host} is not an address of this machine; change it with ${HOST_SETTINGS}`;
    default:
      return `cannot listen on ${host}:${port}: ${message}`;
  }
}
