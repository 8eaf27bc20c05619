/**
 * The parser's view of the lexer: Go's three-token lookahead (next, peek, backup, backup2,
 * backup3) and space skipping, kept separate so the grammar in parser.ts reads like Go's.
 */
import { ItemType, type Item, type Lexer } from "./lexer.js";

export class TokenStream {
  protected token: Item[] = [];
  protected peekCount = 0;

  constructor(protected readonly lex: Lexer) {}

  protected next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.lex.nextItem();
    return this.token[this.peekCount] as Item;
  }
  protected backup(): void {
    this.peekCount++;
  }
  protected backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }
  protected backup3(t2: Item, t1: Item): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }
  protected peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1] as Item;
    this.peekCount = 1;
    this.token[0] = this.lex.nextItem();
    return this.token[0];
  }
  protected nextNonSpace(): Item {
    let t: Item;
    do t = this.next();
    while (t.typ === ItemType.Space);
    return t;
  }
  protected peekNonSpace(): Item {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
}
