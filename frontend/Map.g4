// The .map language (shared/design/language.md). Keywords are
// case-insensitive; names are case-sensitive. The grammar has no recursive
// rule, so no input can drive the parser into deep recursion.
grammar Map;

program : statement* EOF ;

statement
  : machineDecl
  | processorsDecl
  | templateDecl
  | arrayDecl
  | distributeDecl
  | alignDecl
  | layoutDecl
  | placeStmt
  | remapStmt
  | copyStmt
  | redistributeStmt
  | realignStmt
  | reshapeStmt
  ;

// ---- declarations -------------------------------------------------------
machineDecl    : MACHINE kind=IDENT '(' (machineArg (',' machineArg)*)? ')' ';' ;
machineArg     : IDENT '=' (intList | INT) ;
intList        : '[' INT (',' INT)* ']' ;
intArgs        : INT (',' INT)* ;
processorsDecl : PROCESSORS IDENT '(' intArgs ')' ';' ;
templateDecl   : TEMPLATE IDENT '(' intArgs ')' ';' ;
arrayDecl      : ARRAY IDENT '(' intArgs ')' (':' elemType=IDENT)? ';' ;

// ---- HPF mappings -------------------------------------------------------
distributeDecl : DISTRIBUTE distribution ';' ;
distribution   : target=IDENT '(' distFormat (',' distFormat)* ')' ONTO procs=IDENT ;
distFormat     : '*' | IDENT ('(' INT ')')? ;

alignDecl      : ALIGN alignment ';' ;
alignment      : alignee=IDENT '(' alignDummy (',' alignDummy)* ')'
                 WITH target=IDENT '(' alignSub (',' alignSub)* ')' ;
alignDummy     : IDENT | ':' ;
alignSub       : '*' | ':' | linExpr ;
linExpr        : lead=('+' | '-')? term addTerm* ;
// `i + -1` and `i - -1`: a term may carry its own sign after the operator.
addTerm        : op=('+' | '-') sign=('+' | '-')? term ;
term           : INT ('*' IDENT)? | IDENT ('*' INT)? ;

// ---- layouts ------------------------------------------------------------
layoutDecl     : LAYOUT name=IDENT OF array=IDENT '=' layoutExpr ';' ;
layoutExpr
  : KTILE '{' ktileField* '}'                          # ktileLayout
  | BITS '[' mapSection ('|' mapSection)* ']'          # bitsLayout
  | DIGITS '[' mapSection ('|' mapSection)* ']'        # digitsLayout
  | IDENT '(' layoutArg (',' layoutArg)* ')'           # transformLayout
  | IDENT                                              # namedLayout
  ;
ktileField     : IDENT '=' '[' fieldGroup (';' fieldGroup)* ']' ';' ;
// A group may be empty: `m = [; 0; 1]` maps nothing to device dim 0. Sema
// accepts empty groups in `m` only.
fieldGroup     : (fieldItem (',' fieldItem)*)? ;
fieldItem      : INT | '*' | '+' | '-' | IDENT ;
mapSection     : IDENT ':' mapItem* ;
// `!a3^a1`: a device bit holding the XOR of data bits (bits layouts only).
mapItem        : bang='!'? (name=IDENT | value=INT | star='*')
                 ('^' xors+=IDENT)* (':' base=INT)? ;
layoutArg      : IDENT | INT ;

// ---- statements ---------------------------------------------------------
placeStmt        : PLACE array=IDENT IN layout=IDENT ';' ;
remapStmt        : REMAP array=IDENT TO layout=IDENT ';' ;
copyStmt         : COPY src=IDENT TO dst=IDENT ';' ;
redistributeStmt : REDISTRIBUTE distribution ';' ;
realignStmt      : REALIGN alignment ';' ;
reshapeStmt      : RESHAPE array=IDENT TO '(' intArgs ')' ';' ;

// ---- lexer --------------------------------------------------------------
MACHINE      : M A C H I N E ;
PROCESSORS   : P R O C E S S O R S ;
TEMPLATE     : T E M P L A T E ;
ARRAY        : A R R A Y ;
DISTRIBUTE   : D I S T R I B U T E ;
REDISTRIBUTE : R E D I S T R I B U T E ;
ONTO         : O N T O ;
ALIGN        : A L I G N ;
REALIGN      : R E A L I G N ;
WITH         : W I T H ;
LAYOUT       : L A Y O U T ;
OF           : O F ;
KTILE        : K T I L E ;
BITS         : B I T S ;
DIGITS       : D I G I T S ;
PLACE        : P L A C E ;
IN           : I N ;
REMAP        : R E M A P ;
TO           : T O ;
COPY         : C O P Y ;
RESHAPE      : R E S H A P E ;

IDENT   : [a-zA-Z_] [a-zA-Z_0-9]* ;
INT     : [0-9]+ ;
COMMENT : '//' ~[\r\n]* -> skip ;
WS      : [ \t\r\n\f]+ -> skip ;

fragment A : [aA] ; fragment B : [bB] ; fragment C : [cC] ; fragment D : [dD] ;
fragment E : [eE] ; fragment F : [fF] ; fragment G : [gG] ; fragment H : [hH] ; fragment I : [iI] ;
fragment K : [kK] ; fragment L : [lL] ; fragment M : [mM] ; fragment N : [nN] ;
fragment O : [oO] ; fragment P : [pP] ; fragment R : [rR] ; fragment S : [sS] ;
fragment T : [tT] ; fragment U : [uU] ; fragment W : [wW] ; fragment Y : [yY] ;
