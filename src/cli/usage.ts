/** The CLI's --help text. */
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../shared/versions.js";
import { HUB_USAGE } from "./hub-args.js";
import {
  DEFAULT_HEALTH_CHECK,
  DEFAULT_INPUT_TIMEOUT,
  DEFAULT_MAX_TIME,
  DEFAULT_TIMEOUT,
  LOG_LEVEL_CHOICES,
} from "./invocation.js";

export const USAGE = `Usage: conduit-mcp <command> [options] -- <server command> [args...]
       conduit-mcp <command> [options] --url <url>
       conduit-mcp <command> [options] --config <file> [--server <name>]

Talks to one MCP server, started over stdio or reached over Streamable HTTP, and prints what it
answers.

Commands:
  info                      era, protocol version, server info and capabilities
  tools                     the server's tools
  search <query>            the tools that best match a task ("make a folder"), ranked, with
                            their server and score (docs/tool-search.md)
  call <tool> [json]        call a tool; json is an object of arguments (default {})
  resources                 the server's resources and resource templates
  read <uri>                read a resource
  prompts                   the server's prompts
  prompt <name> [json]      get a prompt; json is an object of arguments (default {})
  watch                     stay connected and print notifications, log entries, list changes
                            and connection state changes as they come, until interrupted
  login --url <url>         authorize with the server's OAuth (prints a URL to open; --open
                            opens it) and keep the tokens for later --url commands
                            (see 'login --help')
  logout --url <url>        delete the tokens login kept for that server
  serve --config <file>     serve the file's servers (or --url, or -- <command>) as one MCP
                            server, over stdio or --http (see 'serve --help')
  inspect                   a local web page over the servers (every entry of --config, or one);
                            prints its address with a token (see 'inspect --help', docs/inspect.md)

Options:
  --protocol <choice>       auto (default), modern, legacy, ${[...MODERN_VERSIONS, ...LEGACY_VERSIONS].join(", ")}
  --timeout <ms>            deadline for the handshake and for each request (default ${DEFAULT_TIMEOUT});
                            a progress notification from the server starts it again
  --max-time <ms>           the most a request may last while progress keeps it going
                            (default ${DEFAULT_MAX_TIME})
  --input-timeout <ms>      how long you may take to answer a form or a link (default ${DEFAULT_INPUT_TIMEOUT});
                            no other deadline runs while you are being asked
  --progress                show progress on stderr even when it is not a terminal
                            (on a terminal it always is; with --json as JSON lines)
  --json                    print exactly one JSON document on stdout (watch: one per line)
  --root <dir>              offer this directory to the server as a root (repeatable)
  -h, --help                print this help
  --version                 print the version

${HUB_USAGE}
HTTP (instead of -- <server command>):
  --url <url>               the server's Streamable HTTP endpoint (http:// or https://)
  --header <name:value>     send this header with every request (repeatable)
  --bearer-env <VAR>        send the token in environment variable VAR as a bearer token

call:
  --policy <file>           govern the call with the JSON policy rules in file (docs/governance.md)
  --approve                 ask on the terminal when the policy says ask (refused without one)

watch:
  --log-level <level>       the least severe server log entry wanted (default info):
                            ${LOG_LEVEL_CHOICES.join(", ")}
  --subscribe <uri>         subscribe to this resource's updates (repeatable)
  --health-check <ms>       check the server this often, to notice a restart
                            (default ${DEFAULT_HEALTH_CHECK}; 0: never)

When the server asks for input and stdin is a terminal, a form is asked field by field on stderr
and a link is shown (never opened); without a terminal, every such request is declined.

Exit status: 0 success (watch: also when interrupted; resources and prompts: also when the
server offers none), 1 the tool ran and reported an error (isError), 2 usage error, 3 client
error (an unknown tool among them), 130 interrupted.

Examples:
  conduit-mcp tools -- npx -y @modelcontextprotocol/server-everything
  conduit-mcp call echo '{"message":"hi"}' --json -- npx -y @modelcontextprotocol/server-everything
  MCP_TOKEN=... conduit-mcp tools --url https://mcp.example.com/mcp --bearer-env MCP_TOKEN
  conduit-mcp watch --subscribe file:///notes.md --url http://127.0.0.1:3000/mcp
`;
